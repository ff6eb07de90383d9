#!/bin/sh
# tools/bundle.sh BIN DEST: a relocatable cudojo for a machine with an NVIDIA
# driver but no -dev packages (a lab's GPU server). DEST gets the binary, the
# lessons, and every non-glibc shared library it loads (found with ldd: lua,
# sqlite, ncurses, jansson, cmark, zstd, libarchive, xxhash and theirs) in
# DEST/lib, which the binary's $ORIGIN/lib rpath finds first. The libraries
# loaded into learners' programs travel next to the binary, where
# kernels/program_run.c looks for them: the emulator runtime (BIN's dir/emurt/
# -> DEST/emurt/libcudart.so.N) and the CUPTI injection library (BIN's
# dir/inject/ -> DEST/inject/libcudojo_inject.so), and the trampoline that shuts
# in a program a tool starts (BIN's dir/confine/ -> DEST/confine/cudojo-confine);
# what they load (jansson,
# zstd) goes to DEST/lib too, found by their $ORIGIN/../lib rpath. NVRTC (~110 MB)
# is taken from the CUDA toolkit there (CUDA_HOME or /usr/local/cuda) unless
# BUNDLE_NVRTC=1 puts it in the bundle too.
set -eu
bin=$1
dest=$2
rm -rf "$dest"
mkdir -p "$dest/lib"
cp "$bin" "$dest/cudojo"
cp -r lessons "$dest/lessons"
cp README.md "$dest/" 2>/dev/null || true
# glibc and the loader must come from the target system; everything else travels.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libgcc_s|libstdc\+\+)'
copy_deps() { # FILE [PATTERN]: its non-glibc libraries into DEST/lib, except names matching PATTERN
    ldd "$1" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
        if echo "$name" | grep -Eq "$skip"; then continue; fi
        if [ -n "${2:-}" ] && echo "$name" | grep -Eq "$2"; then continue; fi
        case "$name" in
            libnvrtc*) [ "${BUNDLE_NVRTC:-0}" = 1 ] || continue ;;
        esac
        [ -f "$dest/lib/$name" ] || cp -L "$path" "$dest/lib/$name"
    done
}
copy_deps "$bin"
# The libraries loaded into a learner's program (only the .so files, not the
# build's gen/); NVIDIA's libraries they meet come from the target machine.
build=$(dirname "$bin")
for sub in emurt inject; do
    [ -d "$build/$sub" ] || continue
    mkdir -p "$dest/$sub"
    for so in "$build/$sub"/*.so "$build/$sub"/*.so.*; do
        [ -f "$so" ] || continue
        cp -L "$so" "$dest/$sub/"
        copy_deps "$so" '^(libcudart|libcuda\.so|libcupti)'
    done
done
if [ -x "$build/confine/cudojo-confine" ]; then
    mkdir -p "$dest/confine"
    cp -L "$build/confine/cudojo-confine" "$dest/confine/"
    copy_deps "$build/confine/cudojo-confine"
else
    echo "bundle: no cudojo-confine in $build/confine (graded programs cannot run under compute-sanitizer)" >&2
fi
ls "$dest"/emurt/libcudart.so.* >/dev/null 2>&1 ||
    echo "bundle: no emulator runtime in $build/emurt (programs cannot run without a GPU)" >&2
[ -f "$dest/inject/libcudojo_inject.so" ] ||
    echo "bundle: no CUPTI injection library in $build/inject (programs on a GPU run untraced)" >&2
if [ "${BUNDLE_NVRTC:-0}" = 1 ]; then
    cuda=${CUDA_HOME:-/usr/local/cuda}
    cp -L "$cuda"/lib64/libnvrtc-builtins.so.* "$dest/lib/" 2>/dev/null || true
fi
cat > "$dest/cudojo.sh" <<'SH'
#!/bin/sh
# Runs the bundled cudojo; NVRTC comes from the CUDA toolkit unless bundled.
here=$(cd "$(dirname "$0")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$here/lib:$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDOJO_LESSONS=${CUDOJO_LESSONS:-$here/lessons}
exec "$here/cudojo" "$@"
SH
chmod +x "$dest/cudojo.sh"
echo "bundle: $dest ($(du -sh "$dest" | cut -f1)); libraries:"
ls "$dest/lib"
