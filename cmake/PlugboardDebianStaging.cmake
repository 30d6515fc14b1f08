# Run by cpack before it builds the Debian packages (CPACK_PRE_BUILD_SCRIPTS), on the staged tree
# (CPACK_TEMPORARY_DIRECTORY, a folder per package): Debian's conventions where they differ from a
# plain `cmake --install`.
# - Man pages are compressed with `gzip -9n` (Debian policy 12.1; man reads either form).
# - zsh completions go to /usr/share/zsh/vendor-completions: Debian's zsh searches that folder for
#   packages' completions and not /usr/share/zsh/site-functions, where a plain install puts them
#   (other systems' zsh searches <prefix>/share/zsh/site-functions).
file(GLOB_RECURSE _pb_staged LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/*")
set(_pb_emptied)
foreach(_pb_file IN LISTS _pb_staged)
    if(_pb_file MATCHES "/usr/share/man/man[1-9]/[^/]+\\.[1-9]$")
        execute_process(COMMAND gzip -9nf "${_pb_file}" COMMAND_ERROR_IS_FATAL ANY)
    elseif(_pb_file MATCHES "^(.*/usr/share/zsh)/site-functions/([^/]+)$")
        file(MAKE_DIRECTORY "${CMAKE_MATCH_1}/vendor-completions")
        file(RENAME "${_pb_file}" "${CMAKE_MATCH_1}/vendor-completions/${CMAKE_MATCH_2}")
        list(APPEND _pb_emptied "${CMAKE_MATCH_1}/site-functions")
    endif()
endforeach()
if(_pb_emptied)
    file(REMOVE_RECURSE ${_pb_emptied})
endif()
