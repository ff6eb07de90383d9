#!/bin/sh
# tools/deps.sh [--test] PKG... -- TESTPKG...: check the pkg-config packages the
# build needs; as root install the missing Debian packages, otherwise print the
# exact apt-get line and fail.
want_test=0
[ "$1" = "--test" ] && { want_test=1; shift; }
missing_debs=""
deb_for() {
    case "$1" in
        lua5.4) echo liblua5.4-dev ;;
        sqlite3) echo libsqlite3-dev ;;
        ncursesw) echo libncurses-dev ;;
        jansson) echo libjansson-dev ;;
        libcmark) echo libcmark-dev ;;
        cmocka) echo libcmocka-dev ;;
        libzstd) echo libzstd-dev ;;
        libarchive) echo libarchive-dev ;;
        libxxhash) echo libxxhash-dev ;;
        *) echo "$1" ;;
    esac
}
in_test=0
command -v pkg-config >/dev/null 2>&1 || missing_debs="pkg-config"
for p in "$@"; do
    if [ "$p" = "--" ]; then in_test=1; continue; fi
    [ $in_test = 1 ] && [ $want_test = 0 ] && continue
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$p"; then
        missing_debs="$missing_debs $(deb_for "$p")"
    fi
done
if [ $want_test = 1 ]; then
    command -v tmux >/dev/null 2>&1 || missing_debs="$missing_debs tmux"
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda/include/nvrtc.h" ]; then
    echo "cudojo: the CUDA toolkit was not found at $cuda (need include/nvrtc.h and lib64/libnvrtc.so)." >&2
    echo "        Install it from NVIDIA (any CUDA 12.x/13.x toolkit), or set CUDA_HOME=/path/to/cuda." >&2
    exit 1
fi
[ -z "$missing_debs" ] && exit 0
missing_debs=$(echo $missing_debs)
if [ "$(id -u)" = 0 ]; then
    echo "cudojo: installing missing Debian packages: $missing_debs"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing_debs; } >/tmp/cudojo-apt.log 2>&1 || {
        cat /tmp/cudojo-apt.log >&2
        echo "cudojo: apt-get failed (log above)" >&2
        exit 1
    }
    exit 0
fi
echo "cudojo: missing build dependencies. Run:" >&2
echo "    sudo apt-get install -y $missing_debs" >&2
exit 1
