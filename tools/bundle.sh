#!/bin/sh
# tools/bundle.sh BIN DEST: a relocatable cudojo for a machine with an NVIDIA
# driver but no -dev packages (a lab's GPU server). DEST gets the binary, the
# lessons, and every non-glibc shared library it loads (found with ldd) in
# DEST/lib, which the binary's $ORIGIN/lib rpath finds first. NVRTC (~110 MB)
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
ldd "$bin" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
    if echo "$name" | grep -Eq "$skip"; then continue; fi
    case "$name" in
        libnvrtc*) [ "${BUNDLE_NVRTC:-0}" = 1 ] || continue ;;
    esac
    cp -L "$path" "$dest/lib/$name"
done
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
