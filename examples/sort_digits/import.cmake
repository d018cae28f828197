# The digit sorter's headers, imported from sort_digits.safetensors by scripts/cxmat_import.py at
# build time (never committed): used by this example, by the embedded example's host check and by
# its firmware build, which includes this file from its own stand-alone project.
#   cxmat_import_sort_digits(<python with numpy> <cxmat root> <output folder> <variable>)
# adds the custom command that writes sort_embed.hpp, sort_pos.hpp, sort_encoder.hpp and
# sort_head.hpp to the folder (one dimension namespace, sort::d_model and sort::digits, so each
# part's output is the next one's input) and sets <variable> to their paths, for a target's sources.
function(cxmat_import_sort_digits python root generated out_var)
  set(weights "${root}/examples/sort_digits/sort_digits.safetensors")
  set(importer ${python} "${root}/scripts/cxmat_import.py" "${weights}")
  set(headers "${generated}/sort_embed.hpp" "${generated}/sort_pos.hpp" "${generated}/sort_encoder.hpp"
              "${generated}/sort_head.hpp")
  # Ninja creates an output's folder, Unix Makefiles does not: the first command does.
  add_custom_command(
    OUTPUT ${headers}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${generated}"
    COMMAND ${importer} --module embedding --prefix embed. --dims sort --dim vocab=digits --name sort_embed
            -o "${generated}/sort_embed.hpp"
    COMMAND ${importer} --module tensors --prefix pos --name sort_pos -o "${generated}/sort_pos.hpp"
    COMMAND ${importer} --module encoder --prefix encoder. --heads 4 --post-norm --dims sort --name sort_encoder
            -o "${generated}/sort_encoder.hpp"
    COMMAND ${importer} --module linear --prefix head. --dims sort --dim in_features=d_model --dim out_features=digits
            --name sort_head -o "${generated}/sort_head.hpp"
    DEPENDS "${weights}" "${root}/scripts/cxmat_import.py"
    COMMENT "Importing the digit sorter's weights"
    VERBATIM)
  set(${out_var} ${headers} PARENT_SCOPE)
endfunction()
