# Writes plugboard's man pages into OUTPUT, one per command, with swift-argument-parser's generate-manual
# (the tool of its manual plugin) run on the built plugboard:
#
#   cmake -DGENERATE_MANUAL=<tool> -DPROGRAM=<plugboard> -DOUTPUT=<folder> -P PlugboardManPages.cmake
#
# The tool names a page after the command's path with dots (plugboard.files.cat.1); the pages are renamed to
# man(1)'s convention for subcommands (plugboard-files-cat.1, as git-commit.1), with their titles and
# cross-references to match; the help text's blank lines become the paragraph breaks (.Pp) mdoc expects, and
# its lines that begin with an apostrophe, roff's other control character, are escaped (\&).
foreach(_pb_variable GENERATE_MANUAL PROGRAM OUTPUT)
    if(NOT ${_pb_variable})
        message(FATAL_ERROR "PlugboardManPages.cmake: -D${_pb_variable}=… is required")
    endif()
endforeach()

set(_pb_generated "${OUTPUT}.generated")
file(REMOVE_RECURSE "${_pb_generated}" "${OUTPUT}")
file(MAKE_DIRECTORY "${_pb_generated}" "${OUTPUT}")
execute_process(COMMAND "${GENERATE_MANUAL}" "${PROGRAM}" --multi-page --output-directory "${_pb_generated}"
                COMMAND_ERROR_IS_FATAL ANY)

file(GLOB _pb_pages RELATIVE "${_pb_generated}" "${_pb_generated}/*.1")
if(NOT _pb_pages)
    message(FATAL_ERROR "PlugboardManPages.cmake: ${GENERATE_MANUAL} wrote no page for ${PROGRAM}")
endif()
set(_pb_commands)
foreach(_pb_page IN LISTS _pb_pages)
    string(REGEX REPLACE "\\.1$" "" _pb_command "${_pb_page}")
    list(APPEND _pb_commands "${_pb_command}")
endforeach()

foreach(_pb_command IN LISTS _pb_commands)
    file(READ "${_pb_generated}/${_pb_command}.1" _pb_text)
    foreach(_pb_named IN LISTS _pb_commands)
        string(REPLACE "." "-" _pb_hyphenated "${_pb_named}")
        string(TOUPPER "${_pb_named}" _pb_named_upper)
        string(TOUPPER "${_pb_hyphenated}" _pb_hyphenated_upper)
        string(REPLACE ".Xr ${_pb_named} 1" ".Xr ${_pb_hyphenated} 1" _pb_text "${_pb_text}")
        string(REPLACE ".Dt ${_pb_named_upper} 1" ".Dt ${_pb_hyphenated_upper} 1" _pb_text "${_pb_text}")
    endforeach()
    # Twice: a run of blank lines leaves one behind after the first pass.
    string(REPLACE "\n\n" "\n.Pp\n" _pb_text "${_pb_text}")
    string(REPLACE "\n\n" "\n" _pb_text "${_pb_text}")
    string(REPLACE "\n'" "\n\\&'" _pb_text "${_pb_text}")
    string(REPLACE "." "-" _pb_name "${_pb_command}")
    file(WRITE "${OUTPUT}/${_pb_name}.1" "${_pb_text}")
endforeach()
file(REMOVE_RECURSE "${_pb_generated}")
