# plugboard_add_plugin(<target> <source>...)
#
# Adds a Plugboard plugin library: a MODULE library named <target>.so (no
# "lib" prefix; the host loads any *.so in its plugin directory), built with
# hidden visibility so that `plugboard_entry` is its only exported symbol, and
# linked to the plugboard::abi headers. Use target_* commands on <target> for
# anything else (warnings, sources, OUTPUT_NAME, install).
#
# Part of the Plugboard CMake package: find_package(Plugboard) makes it available.
function(plugboard_add_plugin target)
    if(NOT ARGN)
        message(FATAL_ERROR "plugboard_add_plugin(${target}): no source files given")
    endif()
    add_library(${target} MODULE ${ARGN})
    target_link_libraries(${target} PRIVATE plugboard::abi)
    set_target_properties(${target} PROPERTIES
        PREFIX ""
        C_VISIBILITY_PRESET hidden
        CXX_VISIBILITY_PRESET hidden
        VISIBILITY_INLINES_HIDDEN ON)
endfunction()
