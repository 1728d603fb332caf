# Sourced by scripts/test.sh and scripts/demo.sh: both compile the library twice with the same commands (their
# Release build, then `pip wheel .` in build/wheel), and ccache hands the second the first's objects. Installs
# ccache, keeps its cache in the build tree (a fresh clone starts empty) and sets `ccache_launcher` (CMake
# arguments) and `wheel_compilers` (the environment for the wheel build). The two builds run in folders of
# different depths: the working folder is left out of the hash (Release has no debug information to carry it),
# and no CCACHE_BASEDIR, which would rewrite the absolute source and include paths relative to each folder, so
# that they differ (the first try missed every object that way).
scripts/install_dependencies.sh ccache
export CCACHE_DIR="$PWD/build/ccache" CCACHE_NOHASHDIR=1
ccache_launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# The same compiler by the same name as the Release build (scikit-build-core's CMake otherwise finds it as
# x86_64-linux-gnu-g++), and the launcher through CMAKE_ARGS, which scikit-build-core passes on.
wheel_compilers=(CC=cc CXX=c++ "CMAKE_ARGS=${ccache_launcher[*]}")
