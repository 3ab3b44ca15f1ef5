# install_check.cmake: checks an install made by 'cmake --install' (the ctest
# 'install'): run as
#   cmake -DPREFIX=<prefix> -DSOURCE_DIR=<source dir> -DBINDIR=<bin>
#         -DMANDIR=<share/man> -DDATADIR=<share> -P install_check.cmake
# Every file is there, the data files are the source's byte for byte, and the
# installed dtk runs.
foreach(v PREFIX SOURCE_DIR BINDIR MANDIR DATADIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_check.cmake: -D${v}=... is required")
  endif()
endforeach()

set(failed 0)
set(dtk ${PREFIX}/${BINDIR}/dtk)
if(NOT EXISTS ${dtk} OR IS_DIRECTORY ${dtk})
  message(SEND_ERROR "missing: ${dtk}")
  set(failed 1)
else()
  execute_process(COMMAND ${dtk} --version RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^dtk [0-9]")
    message(SEND_ERROR "${dtk} --version: exit ${rc}, '${out}'")
    set(failed 1)
  else()
    message(STATUS "ok: ${dtk} (${out})")
  endif()
endif()

foreach(pair
    "${MANDIR}/man1/dtk.1=docs/dtk.1"
    "${DATADIR}/bash-completion/completions/dtk=completions/dtk.bash"
    "${DATADIR}/zsh/site-functions/_dtk=completions/_dtk"
    "${BINDIR}/dtk-pre-commit=contrib/pre-commit")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 installed)
  list(GET pair 1 source)
  set(installed ${PREFIX}/${installed})
  if(NOT EXISTS ${installed})
    message(SEND_ERROR "missing: ${installed}")
    set(failed 1)
    continue()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${installed}
                  ${SOURCE_DIR}/${source} RESULT_VARIABLE differ)
  if(differ)
    message(SEND_ERROR "${installed} differs from ${source}")
    set(failed 1)
  else()
    message(STATUS "ok: ${installed}")
  endif()
endforeach()

if(failed)
  message(FATAL_ERROR "the install in ${PREFIX} is incomplete")
endif()
