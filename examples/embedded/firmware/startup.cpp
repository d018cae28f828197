// The smallest start-up a Cortex-M program needs without a C library: the vector table, a reset
// handler that initialises RAM and the FPU and calls main, and the memcpy/memset/memmove (and the
// run-time ABI's __aeabi_ forms) that compilers may call even in freestanding code. No newlib, no
// syscalls, no heap. Built by arm-none-eabi-g++ and by clang++ 19.
#include <cstddef>
#include <cstdint>

// Declared as the program defines it: clang gives main C++ linkage under -ffreestanding, GCC never
// does; either way this declaration names the same function as the definition.
int main();

extern "C" {

// Defined by the linker script.
extern std::uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[], __stack_top[];
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();

void* memcpy(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (std::size_t i = 0; i < n; ++i) d[i] = s[i];
  return dst;
}

void* memmove(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d < s) {
    for (std::size_t i = 0; i < n; ++i) d[i] = s[i];
  } else {
    for (std::size_t i = n; i != 0; --i) d[i - 1] = s[i - 1];
  }
  return dst;
}

void* memset(void* dst, int value, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<unsigned char>(value);
  return dst;
}

// The Arm run-time ABI's memory helpers (RTABI: __aeabi_memcpy, __aeabi_memset, ...), which clang
// calls where GCC calls memcpy and memset; the 4- and 8-suffixed forms may assume aligned
// pointers, and these plain loops serve them all. Note __aeabi_memset's argument order (n before
// the value).
void __aeabi_memcpy(void* dst, const void* src, std::size_t n) { memcpy(dst, src, n); }
void __aeabi_memcpy4(void* dst, const void* src, std::size_t n) { memcpy(dst, src, n); }
void __aeabi_memcpy8(void* dst, const void* src, std::size_t n) { memcpy(dst, src, n); }
void __aeabi_memmove(void* dst, const void* src, std::size_t n) { memmove(dst, src, n); }
void __aeabi_memmove4(void* dst, const void* src, std::size_t n) { memmove(dst, src, n); }
void __aeabi_memmove8(void* dst, const void* src, std::size_t n) { memmove(dst, src, n); }
void __aeabi_memset(void* dst, std::size_t n, int value) { memset(dst, value, n); }
void __aeabi_memset4(void* dst, std::size_t n, int value) { memset(dst, value, n); }
void __aeabi_memset8(void* dst, std::size_t n, int value) { memset(dst, value, n); }
void __aeabi_memclr(void* dst, std::size_t n) { memset(dst, 0, n); }
void __aeabi_memclr4(void* dst, std::size_t n) { memset(dst, 0, n); }
void __aeabi_memclr8(void* dst, std::size_t n) { memset(dst, 0, n); }

[[noreturn]] void Reset_Handler() {
  for (std::uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (std::uint32_t* dst = __bss_start; dst < __bss_end;) *dst++ = 0;
#if defined(__ARM_FP)
  // Grant full access to coprocessors 10 and 11 (the FPU) before any floating-point instruction.
  *reinterpret_cast<volatile std::uint32_t*>(0xE000ED88u) |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  for (auto* init = __init_array_start; init < __init_array_end; ++init) (*init)();
  main();
  for (;;) {
  }
}

[[noreturn]] void Default_Handler() {
  for (;;) {
  }
}

// A program may define its own HardFault handler (the emulator harness reports the fault and
// ends the run); otherwise a fault stops here like any other exception.
[[noreturn, gnu::weak, gnu::alias("Default_Handler")]] void HardFault_Handler() noexcept;
// SysTick's interrupt: the harness counts the timer's wraps with it; a program that does not
// enable it never takes it.
[[gnu::weak]] void SysTick_Handler() noexcept {}

// Initial stack pointer, then the 15 system exceptions of ARMv6-M/ARMv7-M (0: reserved).
using handler = void (*)();
[[gnu::section(".isr_vector"), gnu::used]] const handler vector_table[16] = {reinterpret_cast<handler>(__stack_top),
                                                                             Reset_Handler,
                                                                             Default_Handler,
                                                                             HardFault_Handler,
                                                                             Default_Handler,
                                                                             Default_Handler,
                                                                             Default_Handler,
                                                                             nullptr,
                                                                             nullptr,
                                                                             nullptr,
                                                                             nullptr,
                                                                             Default_Handler,
                                                                             Default_Handler,
                                                                             nullptr,
                                                                             Default_Handler,
                                                                             SysTick_Handler};

}  // extern "C"
