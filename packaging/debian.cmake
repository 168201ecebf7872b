# The Debian packages (cpack -G DEB, run by packaging/build-deb):
#   hogwild-lab       everything but the CUDA module; its dependencies come
#                     from the binaries (dpkg-shlibdeps), so none is CUDA's
#   hogwild-lab-cuda  the CUDA module (only when it was built): NVIDIA's
#                     runtime and cuBLAS come from NVIDIA's repository, not
#                     Debian's, so dpkg-shlibdeps cannot name them; the engine
#                     loads the module only when they are there.
# The maintainer: Debian's DEBFULLNAME and DEBEMAIL when set (as dch reads
# them: whoever packages it), else the author of the commit being packaged
# (git), else this user at this host. The project has no published
# address, so none is invented; nor a Homepage field, as it has no homepage.
if(DEFINED ENV{DEBEMAIL})
  set(name "$ENV{DEBFULLNAME}")
  if(name STREQUAL "")
    set(name "Hogwild Lab packager")
  endif()
  set(HWL_MAINTAINER "${name} <$ENV{DEBEMAIL}>")
else()
  execute_process(COMMAND git log -1 --format=%an\ <%ae>
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE HWL_MAINTAINER OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE no_git ERROR_QUIET)
  if(NOT no_git EQUAL 0 OR HWL_MAINTAINER STREQUAL "")
    cmake_host_system_information(RESULT host QUERY FQDN)
    set(HWL_MAINTAINER "Hogwild Lab packager <$ENV{USER}@${host}>")
  endif()
endif()

# Debian's copyright file (machine-readable format; "Expat" is Debian's name
# for the MIT license) and changelog, from LICENSE and the version.
file(READ ${PROJECT_SOURCE_DIR}/LICENSE license)
string(REGEX REPLACE "^MIT License\n\n[^\n]*\n\n" "" license "${license}")
string(REGEX REPLACE "\n$" "" license "${license}")
string(REGEX REPLACE "\n\n" "\n.\n" license "${license}")
string(REGEX REPLACE "\n" "\n " license " ${license}")
string(TIMESTAMP year "%Y" UTC)
set(copyright "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: hogwild-lab

Files: *
Copyright: ${year} Hogwild Lab contributors
License: Expat

License: Expat
${license}
")
string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC) # SOURCE_DATE_EPOCH when set
set(deb ${CMAKE_CURRENT_BINARY_DIR}/debian)
foreach(package hogwild-lab hogwild-lab-cuda)
  file(WRITE ${deb}/${package}/copyright "${copyright}")
  file(WRITE ${deb}/${package}/changelog
       "${package} (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
       "  * Packaged from the repository (packaging/build-deb).\n\n"
       " -- ${HWL_MAINTAINER}  ${date}\n")
  execute_process(COMMAND gzip -9nf ${deb}/${package}/changelog)
endforeach()
install(FILES ${deb}/hogwild-lab/copyright ${deb}/hogwild-lab/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/hogwild-lab)
if(HWL_HAVE_CUDA)
  install(FILES ${deb}/hogwild-lab-cuda/copyright ${deb}/hogwild-lab-cuda/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/hogwild-lab-cuda COMPONENT cuda)
endif()

set(CPACK_PACKAGE_NAME hogwild-lab)
set(CPACK_PACKAGE_VENDOR "Hogwild Lab contributors")
set(CPACK_PACKAGE_CONTACT "${HWL_MAINTAINER}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_INSTALL_DIRECTORY hogwild-lab)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL main)
if(HWL_HAVE_CUDA)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # hogwild-lab_<version>_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HWL_MAINTAINER}")

# Each package's description: its first line is the synopsis, an empty line
# separates paragraphs (CPack indents the rest as Debian's control file wants).
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME hogwild-lab)
set(CPACK_DEBIAN_MAIN_PACKAGE_SHLIBDEPS ON)
# qt6-wayland: the window runs as a native Wayland client (its app id then
# matches the desktop file); xcb and offscreen come with libqt6gui6.
set(CPACK_DEBIAN_MAIN_PACKAGE_RECOMMENDS "dataset-fashion-mnist, openmpi-bin, qt6-wayland")
set(CPACK_DEBIAN_MAIN_PACKAGE_SUGGESTS "hogwild-lab-cuda")
set(CPACK_DEBIAN_MAIN_DESCRIPTION "workbench for parallel SGD training (Hogwild, data-parallel, MPI)
Hogwild Lab trains small models (multi-layer perceptrons, a sparse
embedding-bag classifier, the CNN of PyTorch's mnist_hogwild example, or a
network written as a layer list, net:) serially, with lock-free Hogwild
threads, in worker processes and data-parallel over threads, processes or
MPI ranks, with SGD, Adam, AdamW, RMSprop or Adagrad as torch.optim applies
them, and charts every worker's loss and the drift between workers.
Teaching presets show the pitfalls of parallel training. Runs export
metrics.csv, safetensors weights that PyTorch and NumPy load, and the
network as ONNX.

This package has the window (hogwild-lab), the engine without Qt
(hogwild-lab-engine) and example experiments. The GPU modes are in
hogwild-lab-cuda.")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME hogwild-lab-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS
    "hogwild-lab (= ${PROJECT_VERSION}), libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1 (>= 3.0)")
set(CPACK_DEBIAN_CUDA_DESCRIPTION "CUDA backend for Hogwild Lab (GPU modes)
The module libhwl_cuda.so that hogwild-lab loads for its GPU modes
(data-parallel on GPUs, GPU Hogwild). It needs NVIDIA's CUDA runtime and
cuBLAS (CUDA ${CMAKE_CUDA_COMPILER_VERSION}), and NCCL for more than one GPU,
from NVIDIA's repository; without them hogwild-lab runs everything else
and says what is missing.")

include(CPack)
