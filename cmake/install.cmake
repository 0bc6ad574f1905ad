# `cmake --install`: lockstep as a CMake package, so a design can be checked and timed from a
# repository of its own (docs/architecture.md, "Use from outside the tree"; examples/):
#   find_package(lockstep REQUIRED)
#   target_link_libraries(my_tool PRIVATE lockstep::lockstep_driver)
# Exported: the platform concept and the designs (lockstep_core, header-only), the simulator,
# the model checker, the native platform, the scenario specification and its loaders (spec/),
# results (report/) and the driver that runs scenarios and binds workloads to the simulator
# and to real threads; their headers keep the tree's paths under include/lockstep
# ("core/platform.hpp"). The `lockstep` command is installed beside them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LOCKSTEP_EXPORTED_LIBRARIES
    lockstep_core lockstep_io lockstep_report lockstep_trace lockstep_profile lockstep_measure lockstep_axiomatic lockstep_sim
    lockstep_model lockstep_native lockstep_native_probes lockstep_spec lockstep_driver)
install(TARGETS ${LOCKSTEP_EXPORTED_LIBRARIES} EXPORT lockstepTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS lockstep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir core io report trace profile measure axiomatic sim model native spec driver)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockstep/${dir}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(EXPORT lockstepTargets NAMESPACE lockstep:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lockstepConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/lockstepConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lockstepConfig.cmake ${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
