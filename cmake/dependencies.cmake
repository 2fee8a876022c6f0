# Dependencies: Debian packages (see scripts/setup.sh).
find_package(OpenMP REQUIRED)
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)

# OpenBLAS, preferring the OpenMP build so that a GEMM called inside our own parallel
# regions runs single-threaded instead of oversubscribing the cores.
find_path(OPENBLAS_INCLUDE_DIR cblas.h PATHS /usr/include/x86_64-linux-gnu/openblas-openmp
          /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas /usr/include)
find_library(OPENBLAS_LIBRARY NAMES openblas
             PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp /usr/lib/x86_64-linux-gnu/openblas-pthread
             NO_DEFAULT_PATH)
if(NOT OPENBLAS_LIBRARY)
  find_library(OPENBLAS_LIBRARY NAMES openblas REQUIRED)
endif()
message(STATUS "OpenBLAS: ${OPENBLAS_LIBRARY} (${OPENBLAS_INCLUDE_DIR})")
add_library(precis::openblas INTERFACE IMPORTED)
target_include_directories(precis::openblas INTERFACE ${OPENBLAS_INCLUDE_DIR})
target_link_libraries(precis::openblas INTERFACE ${OPENBLAS_LIBRARY})

# The CUDA backend compiles where a toolkit is found (a later step adds its sources).
if(PRECIS_CUDA AND EXISTS /usr/local/cuda/bin/nvcc)
  set(PRECIS_HAVE_CUDA_TOOLKIT ON)
  message(STATUS "CUDA toolkit found at /usr/local/cuda")
endif()

# lz4: apt's Translation lists (the built-in Debian descriptions dataset) are lz4-compressed.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)

# yaml-cpp: training configs may be YAML as well as JSON.
find_package(yaml-cpp REQUIRED)

# cpp-httplib: the HTTP server of precis serve (Debian builds it as a library; its pkg-config
# flags must be used so that the header matches the library's build options).
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)

# SentencePiece: T5's tokenizer (spiece.model), Debian's libsentencepiece-dev.
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)
