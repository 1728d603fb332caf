#!/usr/bin/env bash
# Installs a poolgrad build into a fresh temporary prefix and checks it the way a user would use it.
#
#   install_test.sh MODE BUILD_DIR SOURCE_DIR LIBDIR INCLUDEDIR CMAKE GENERATOR SANITIZE CXX CC
#
#   MODE        layout        the installed files, then the CANN seed-style client built with exactly
#                             "g++ prog.cpp -I<prefix>/include -L<prefix>/lib -lpoolgrad", a C11 client, and
#                             examples/max_pool.cpp built with CANN's own link lines
#                             ("-lascendcl -lnnopbase -lopapi_nn -lopapi_math", "-lacl_rt", "-lopapi")
#               find_package  a CMake project using find_package(poolgrad) and poolgrad::poolgrad, and
#                             CANN's target names (ascendcl nnopbase opapi_nn opapi_math, poolgrad::acl_rt)
#               pkg_config    a client built with $(pkg-config --cflags --libs poolgrad)
#   BUILD_DIR   the poolgrad build tree to install (cmake --install BUILD_DIR --prefix <tmp>)
#   SOURCE_DIR  the poolgrad source tree (public headers in include/, this script in tests/packaging/)
#   LIBDIR      CMAKE_INSTALL_LIBDIR of the build (GNUInstallDirs: "lib" on Debian with a /usr/local
#               prefix, "lib64" or "lib/<multiarch>" elsewhere), relative to the prefix
#   INCLUDEDIR  CMAKE_INSTALL_INCLUDEDIR of the build, relative to the prefix
#   CMAKE       the cmake executable; GENERATOR: the CMake generator for the consumer project
#   SANITIZE    ON when the library is built with AddressSanitizer/UBSan: clients are then compiled with
#               -fsanitize=address,undefined too (the ASan runtime must come first in the process)
#   CXX, CC     compilers to use when g++ / gcc are not on PATH
#
# Needs no network. Everything is created under a temporary directory that is removed on exit.
set -euo pipefail

if [[ $# -ne 10 ]]; then
    sed -n '2,22p' "$0" >&2
    exit 2
fi
mode=$1 build_dir=$2 source_dir=$3 libdir=$4 includedir=$5 cmake=$6 generator=$7 sanitize=$8 cxx=$9 cc=${10}

fail() {
    echo "install_test ($mode): FAIL: $*" >&2
    exit 1
}
note() { echo "install_test ($mode): $*"; }

case "$libdir" in /*) fail "CMAKE_INSTALL_LIBDIR is absolute ($libdir); the test needs a prefix-relative one" ;; esac
case "$includedir" in /*) fail "CMAKE_INSTALL_INCLUDEDIR is absolute ($includedir)" ;; esac

packaging_dir=$source_dir/tests/packaging
expected=$packaging_dir/expected/max_pool3d_with_argmax_backward.txt  # WE-1: result[6] is: 0.475700, others 0
command -v g++ >/dev/null 2>&1 && cxx=g++
command -v gcc >/dev/null 2>&1 && cc=gcc
sanitize_flags=()
case "$sanitize" in ON | on | TRUE | true | 1 | YES | yes) sanitize_flags=(-fsanitize=address,undefined) ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/poolgrad-install-$mode.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
lib=$prefix/$libdir
inc=$prefix/$includedir

note "installing $build_dir into $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 || {
    cat "$work/install.log" >&2
    fail "cmake --install failed"
}

# Runs a client program and compares its output with the expected lines (default: WE-1's).
run_client() {
    local program=$1 expected_output=${2:-$expected} output
    output=$("$program") || fail "$program exited with $?"
    if ! diff -u "$expected_output" <(printf '%s\n' "$output") >"$work/diff.txt"; then
        cat "$work/diff.txt" >&2
        fail "$program printed something else than $expected_output"
    fi
    note "$(basename "$program") printed the expected lines of $(basename "$expected_output")"
}

# CANN's library names, each a link to libpoolgrad.so (CMakeLists.txt: POOLGRAD_CANN_LINK_NAMES).
cann_link_names=(ascendcl nnopbase opapi opapi_nn opapi_math acl_rt)
max_pool_example=$source_dir/examples/max_pool.cpp
max_pool_expected=$packaging_dir/expected/max_pool.txt

check_layout() {
    local file
    for file in "$inc/acl/acl.h" "$inc/acl/acl_base.h" "$inc/acl/acl_rt.h" "$inc/aclnn/acl_meta.h" \
        "$inc/aclnn/aclnn_base.h" "$inc/aclnnop/aclnn_max_pool3d_with_argmax.h" \
        "$inc/aclnnop/aclnn_max_pool3d_with_argmax_backward.h" "$inc/poolgrad/poolgrad.h" \
        "$lib/libpoolgrad.so" "$lib/cmake/poolgrad/poolgradConfig.cmake" \
        "$lib/cmake/poolgrad/poolgradConfigVersion.cmake" "$lib/cmake/poolgrad/poolgradTargets.cmake" \
        "$lib/pkgconfig/poolgrad.pc" "$inc/aclnnop/aclnn_max_pool.h" "$inc/aclnnop/aclnn_max_pool_v3.h"; do
        [[ -f $file ]] || fail "missing ${file#"$prefix"/}"
    done
    local link_name
    for link_name in "${cann_link_names[@]}"; do
        [[ -L $lib/lib$link_name.so && $(readlink "$lib/lib$link_name.so") == libpoolgrad.so ]] ||
            fail "lib$link_name.so is not installed as a link to libpoolgrad.so"
    done
    # Every public header of the source tree is installed, unchanged, and nothing else lands in include/.
    local header
    while IFS= read -r header; do
        cmp -s "$source_dir/include/$header" "$inc/$header" || fail "include/$header is missing or differs"
    done < <(cd "$source_dir/include" && find . -name '*.h' | sed 's|^\./||' | sort)
    local source_count installed_count
    source_count=$(cd "$source_dir/include" && find . -name '*.h' | wc -l)
    installed_count=$(cd "$inc" && find . -type f | wc -l)
    [[ $source_count -eq $installed_count ]] ||
        fail "include/ holds $installed_count files but the source tree has $source_count public headers"
    # The versioned shared object: libpoolgrad.so → libpoolgrad.so.MAJOR (the SONAME) → the real file.
    local soname
    soname=$(objdump -p "$lib/libpoolgrad.so" 2>/dev/null | awk '$1 == "SONAME" {print $2}') || true
    if [[ -n $soname ]]; then
        [[ -e $lib/$soname ]] || fail "the SONAME $soname is not installed next to libpoolgrad.so"
        note "SONAME $soname"
    fi
    # No private (hidden) symbols leak: the public API is exported, the internals are not.
    if command -v nm >/dev/null 2>&1; then
        local symbols
        symbols=$(nm -D --defined-only "$lib/libpoolgrad.so" | awk '{print $3}')
        for symbol in aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize aclnnMaxPool3dWithArgmaxBackward \
            aclnnMaxPoolGetWorkspaceSize aclnnMaxPool aclnnMaxPoolV3GetWorkspaceSize aclnnMaxPoolV3 \
            aclnnMaxPool3dWithArgmaxGetWorkspaceSize aclnnMaxPool3dWithArgmax aclCreateTensor aclrtMalloc \
            aclInit aclGetRecentErrMsg aclDestroyAclOpExecutor aclSetInputTensorAddr aclSetOutputTensorAddr \
            aclSetRawTensorAddr aclGetRawTensorAddr poolgradForceImplementation; do
            grep -qx "$symbol" <<<"$symbols" || fail "libpoolgrad.so does not export $symbol"
        done
    fi
    note "layout OK (libdir '$libdir', includedir '$includedir')"

    # The CANN seed-style client, compiled exactly as a CANN user would.
    local command=("$cxx" "$packaging_dir/seed_style_client.cpp" "-I$inc" "-L$lib" -lpoolgrad
        "${sanitize_flags[@]}" "-Wl,-rpath,$lib" -o "$work/seed_style_client")
    note "${command[*]}"
    "${command[@]}" || fail "the seed-style client does not compile/link against the installed package"
    run_client "$work/seed_style_client"

    # A C11 client: the headers and the exported functions must be usable from C.
    command=("$cc" -std=c11 -Wall -Wextra -Werror -pedantic "$packaging_dir/c_client.c" "-I$inc" "-L$lib"
        -lpoolgrad "${sanitize_flags[@]}" "-Wl,-rpath,$lib" -o "$work/c_client")
    note "${command[*]}"
    "${command[@]}" || fail "the C client does not compile/link against the installed package"
    run_client "$work/c_client"

    # A CANN sample with CANN's own link lines, unchanged.
    local link_line
    for link_line in "-lascendcl -lnnopbase -lopapi_nn -lopapi_math" "-lacl_rt" "-lascendcl -lnnopbase -lopapi"; do
        # shellcheck disable=SC2206  # the link line is meant to be split
        command=("$cxx" "$max_pool_example" "-I$inc" "-L$lib" $link_line "${sanitize_flags[@]}" "-Wl,-rpath,$lib"
            -o "$work/max_pool")
        note "${command[*]}"
        "${command[@]}" || fail "examples/max_pool.cpp does not build with CANN's link line $link_line"
        run_client "$work/max_pool" "$max_pool_expected"
    done
}

check_find_package() {
    local flags=()
    if [[ ${#sanitize_flags[@]} -gt 0 ]]; then
        flags=("-DCMAKE_C_FLAGS=${sanitize_flags[*]}" "-DCMAKE_CXX_FLAGS=${sanitize_flags[*]}"
            "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_flags[*]}")
    fi
    "$cmake" -S "$packaging_dir/consumer" -B "$work/consumer" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
        "-DCMAKE_PREFIX_PATH=$prefix" "-DEXPECTED_PREFIX=$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
        "-DCMAKE_C_COMPILER=$cc" "-DCMAKE_CXX_COMPILER=$cxx" "${flags[@]}" >"$work/configure.log" 2>&1 || {
        cat "$work/configure.log" >&2
        fail "configuring a find_package(poolgrad) project failed"
    }
    "$cmake" --build "$work/consumer" >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2
        fail "building the find_package(poolgrad) project failed"
    }
    grep -E 'poolgrad [0-9.]+ from' "$work/configure.log" || true
    run_client "$work/consumer/seed_style_client"
    run_client "$work/consumer/c_client"
    run_client "$work/consumer/max_pool_cann_names" "$max_pool_expected"
    run_client "$work/consumer/max_pool_acl_rt" "$max_pool_expected"
}

check_pkg_config() {
    command -v pkg-config >/dev/null 2>&1 || fail "pkg-config is not installed"
    local pc_path=$lib/pkgconfig flags
    flags=$(PKG_CONFIG_PATH=$pc_path PKG_CONFIG_LIBDIR=$pc_path pkg-config --cflags --libs poolgrad) ||
        fail "pkg-config does not find poolgrad in $pc_path"
    note "pkg-config --cflags --libs poolgrad: $flags"
    local version
    version=$(PKG_CONFIG_PATH=$pc_path PKG_CONFIG_LIBDIR=$pc_path pkg-config --modversion poolgrad)
    [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "pkg-config --modversion poolgrad gives '$version'"
    # The flags must point into the prefix the package was installed to (a relocatable .pc file, e.g.
    # prefix=${pcfiledir}/../..): compare canonical paths, so "<prefix>/lib/pkgconfig/../../include" counts.
    local flag include_ok=false lib_ok=false link_ok=false
    for flag in $flags; do
        case "$flag" in
            -I*) [[ $(realpath -m "${flag#-I}") == $(realpath -m "$inc") ]] && include_ok=true ;;
            -L*) [[ $(realpath -m "${flag#-L}") == $(realpath -m "$lib") ]] && lib_ok=true ;;
            -lpoolgrad) link_ok=true ;;
        esac
    done
    $include_ok || fail "the Cflags do not name $inc (poolgrad.pc: $(grep '^prefix=' "$pc_path/poolgrad.pc")):" \
        "poolgrad.pc is not relocatable; 'cmake --install --prefix' elsewhere than CMAKE_INSTALL_PREFIX breaks it"
    $lib_ok || fail "the Libs do not name $lib"
    $link_ok || fail "the Libs do not contain -lpoolgrad"
    # shellcheck disable=SC2086  # the flags are meant to be split
    "$cxx" "$packaging_dir/seed_style_client.cpp" $flags "${sanitize_flags[@]}" "-Wl,-rpath,$lib" \
        -o "$work/seed_style_client" || fail "the client does not build with the pkg-config flags"
    run_client "$work/seed_style_client"
}

case "$mode" in
    layout) check_layout ;;
    find_package) check_find_package ;;
    pkg_config) check_pkg_config ;;
    *) fail "unknown mode '$mode' (layout, find_package or pkg_config)" ;;
esac
note "PASS"
