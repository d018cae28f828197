# The adder's header, imported from adder.safetensors and config.json by scripts/cxmat_import.py at
# build time (never committed): used by this example, by the embedded example's host check and by
# its firmware build, which includes this file from its own stand-alone project.
#   cxmat_import_lm_adder(<python with numpy> <cxmat root> <output folder> <variable>)
# adds the custom command that writes adder_model.hpp (the constexpr `adder`, a cxmat::llama_model)
# to the folder and sets <variable> to its path, for a target's sources.
function(cxmat_import_lm_adder python root generated out_var)
  set(source "${root}/examples/lm_adder")
  set(header "${generated}/adder_model.hpp")
  # Ninja creates an output's folder, Unix Makefiles does not: the first command does.
  add_custom_command(
    OUTPUT "${header}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${generated}"
    COMMAND ${python} "${root}/scripts/cxmat_import.py" "${source}/adder.safetensors" --module llama
            --config "${source}/config.json" --name adder -o "${header}"
    DEPENDS "${source}/adder.safetensors" "${source}/config.json" "${root}/scripts/cxmat_import.py"
    COMMENT "Importing the adder's weights"
    VERBATIM)
  set(${out_var} "${header}" PARENT_SCOPE)
endfunction()
