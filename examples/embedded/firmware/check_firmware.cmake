# Checks one linked firmware image and writes its section sizes to REPORT:
#  - no forbidden symbol (heap, exceptions, RTTI, iostream, libm), with the freestanding check;
#  - each constexpr object named in RODATA is in .rodata, and no other model:: or layers:: object, nor
#    any of the digit sorter's imported ones (sort_*), is in the image (where the context's keys and
#    values are folded, the context and W_k, W_v are gone);
#  - .data is empty: no weight is copied from flash to RAM at start-up;
#  - with INTEGER_ONLY (an int8 program), no floating-point arithmetic: no floating-point
#    instruction in the disassembly (OBJDUMP; MVE=ON for a core with Helium, whose integer vector
#    instructions are told apart from floating-point ones) and no soft-float helper of libgcc linked in.
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${CMAKE_COMMAND} -DNM=${NM} -DOBJECTS=${ELF} -DEXPECT=clean -P ${CHECK_SYMBOLS}
                RESULT_VARIABLE symbols_result OUTPUT_VARIABLE symbols_out ERROR_VARIABLE symbols_out)
if(NOT symbols_result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM}: ${symbols_out}")
endif()

# name | value | class | type | size | line | section, for every data object of the model.
execute_process(COMMAND ${NM} -C -S --format=sysv ${ELF} OUTPUT_VARIABLE table RESULT_VARIABLE nm_result)
if(NOT nm_result EQUAL 0)
  message(FATAL_ERROR "nm failed on ${ELF}")
endif()
string(REPLACE "\n" ";" lines "${table}")
set(model_symbols "")
foreach(line IN LISTS lines)
  # The model's namespaces; the importer's headers (scripts/cxmat_import.py) put the sorter's
  # weights in sort_<part>_weights:: and its modules (which hold weights too) at namespace scope,
  # and its int8 version is in sort_model_q8::; the adder's float model is `adder` (its int8
  # version is in layers::).
  if(line MATCHES "^((model|layers)::[^ |]*|sort_[a-z0-9_]+(::[^ |]*)?|adder) *\\|[^|]*\\|[^|]*\\| *OBJECT\\|([0-9a-f]+)\\|[^|]*\\|(.*)$")
    list(APPEND model_symbols "${CMAKE_MATCH_1}")
    string(STRIP "${CMAKE_MATCH_5}" section_${CMAKE_MATCH_1})
    math(EXPR size_${CMAKE_MATCH_1} "0x${CMAKE_MATCH_4}")
  endif()
endforeach()
set(rodata_bytes 0)
foreach(object IN LISTS RODATA)
  if(NOT object IN_LIST model_symbols)
    message(FATAL_ERROR "${PROGRAM}: ${object} is not in the image (model symbols: ${model_symbols})")
  endif()
  if(NOT section_${object} STREQUAL ".rodata")
    message(FATAL_ERROR "${PROGRAM}: ${object} is in section '${section_${object}}', not .rodata")
  endif()
  math(EXPR rodata_bytes "${rodata_bytes} + ${size_${object}}")
endforeach()
foreach(object IN LISTS model_symbols)
  if(NOT object IN_LIST RODATA)
    message(FATAL_ERROR "${PROGRAM}: unexpected model data ${object} in the image (folded away?)")
  endif()
endforeach()

if(INTEGER_ONLY)
  # Floating point on a Cortex-M is either the FPU's instructions (every one a v... mnemonic:
  # vadd.f32, vcvt, vmov, vldr, vpush ...) or, without an FPU, calls to libgcc's helpers
  # (__aeabi_fadd, __aeabi_d2f, __addsf3 ...), which a static link brings in by name.
  # With MVE (Helium: the M55's int8 kernels) integer vector instructions are v... mnemonics too:
  # there, a floating-point one is a v... instruction of a float type (.f16, .f32, .f64), a
  # conversion (vcvt), or one with an s or d register operand (vmov s0, vldr d1, vpush {d8}), and
  # objdump is told the architecture so that it decodes MVE.
  set(objdump_arch "")
  set(fp_pattern "v[a-z0-9]+")
  if(MVE)
    set(objdump_arch -m armv8.1-m.main)
    set(fp_pattern "(v[a-z0-9.]*\\.f(16|32|64)|vcvt|v[a-z0-9.]+\t[^\n]*[\t {][sd][0-9]+[,} \n])")
  endif()
  execute_process(COMMAND ${OBJDUMP} -d ${objdump_arch} ${ELF} OUTPUT_VARIABLE disassembly RESULT_VARIABLE objdump_result)
  if(NOT objdump_result EQUAL 0)
    message(FATAL_ERROR "objdump failed on ${ELF}")
  endif()
  string(REGEX MATCH "\n *[0-9a-f]+:\t[0-9a-f ]+\t${fp_pattern}[^\n]*" fpu_instruction "${disassembly}")
  if(fpu_instruction)
    string(STRIP "${fpu_instruction}" fpu_instruction)
    message(FATAL_ERROR "${PROGRAM}: a floating-point instruction in an integer-only program: ${fpu_instruction}")
  endif()
  # On a core with Helium the int8 kernels are its (kernels/runtime_mve.hpp): an int8 program
  # without a VMLADAVA would have fallen back to another path unnoticed.
  if(MVE AND NOT disassembly MATCHES "\tvmlava\.s8\t")
    message(FATAL_ERROR "${PROGRAM}: no Helium multiply-accumulate (vmlava.s8) in an int8 program built for MVE")
  endif()
  set(soft_float "__aeabi_[fd](add|sub|rsub|mul|div|neg|cmp[a-z]*|2[a-z0-9]+)|__aeabi_u?[il]2[fd]")
  string(APPEND soft_float "|__(add|sub|mul|div|neg)[sd]f3|__fix(uns)?[sd]f[sd]i|__float(un)?[sd]i[sd]f")
  string(APPEND soft_float "|__extendsfdf2|__truncdfsf2|__(eq|ne|lt|le|gt|ge|unord|cmp)[sd]f2")
  foreach(line IN LISTS lines)
    if(line MATCHES "^(${soft_float}) *\\|")
      message(FATAL_ERROR "${PROGRAM}: a soft-float helper in an integer-only program: ${CMAKE_MATCH_1}")
    endif()
  endforeach()
endif()

execute_process(COMMAND ${SIZE} -A ${ELF} OUTPUT_VARIABLE sections)
set(text 0)
set(rodata 0)
set(data 0)
set(bss 0)
string(REPLACE "\n" ";" lines "${sections}")
foreach(line IN LISTS lines)
  if(line MATCHES "^\\.(isr_vector|text|rodata|data|bss|ARM\\.exidx|init_array)[ \t]+([0-9]+)")
    set(section "${CMAKE_MATCH_1}")
    set(bytes "${CMAKE_MATCH_2}")
    if(section STREQUAL "isr_vector" OR section STREQUAL "text" OR section STREQUAL "ARM.exidx" OR
       section STREQUAL "init_array")
      math(EXPR text "${text} + ${bytes}")
    else()
      set(${section} "${bytes}")
    endif()
  endif()
endforeach()
if(NOT data EQUAL 0)
  message(FATAL_ERROR "${PROGRAM}: .data is ${data} bytes; constants should stay in flash")
endif()

# Stack: main's own frame (matrices are locals) and the deepest function it calls, from GCC's
# -fstack-usage (static; nothing here recurses or allocates dynamically).
set(stack "")
if(EXISTS "${STACK_USAGE}")
  # Function signatures contain [ and ], which CMake's lists treat as brackets: drop them.
  file(READ "${STACK_USAGE}" usage)
  string(REGEX REPLACE "[][;]" " " usage "${usage}")
  string(REPLACE "\n" ";" usage_lines "${usage}")
  set(main_frame 0)
  set(callee_frame 0)
  foreach(entry IN LISTS usage_lines)
    if(entry MATCHES "\t([0-9]+)\t[a-z,]+$")
      set(bytes "${CMAKE_MATCH_1}")
      if(entry MATCHES "int main\\(\\)")
        set(main_frame "${bytes}")
      elseif(bytes GREATER callee_frame)
        set(callee_frame "${bytes}")
      endif()
    endif()
  endforeach()
  set(stack "  stack ${main_frame} + ${callee_frame}")
endif()

set(line "${PROGRAM}: .text ${text}  .rodata ${rodata} (weights ${rodata_bytes})  .data ${data}  .bss ${bss}${stack}")
file(WRITE ${REPORT} "${line}\n")
message(STATUS "${line}")
