#!/bin/sh
# Install test: `meson install --destdir` of the current build into a temporary directory, then
# build tests/consumer/consumer.c against the staged install and run it (pkgconfig, cmake); or
# build it in a fresh meson project that has this source tree as subprojects/simdkern and takes
# it with dependency('simdkern') (subproject).
#   run.sh pkgconfig|cmake|subproject|cross BUILD_ROOT SOURCE_DIR MESON CC PREFIX [EXTRA_CFLAGS]
# Exits 77 (meson: skipped) when the tool it needs (pkg-config / cmake, a C compiler) is missing,
# and in a cross build (mode "cross": the consumer could not run here).
set -eu
mode=$1 build=$2 src=$3 meson=$4 cc=$5 prefix=$6 extra=${7:-}
skip() { echo "skipped: $*"; exit 77; }
[ "$mode" = cross ] && skip "cross build"
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc)"
case $mode in
  pkgconfig) command -v pkg-config >/dev/null 2>&1 || skip "no pkg-config" ;;
  cmake) command -v cmake >/dev/null 2>&1 || skip "no cmake"
         command -v ninja >/dev/null 2>&1 || skip "no ninja" ;;
  subproject) ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/simdkern-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ "$mode" = subproject ]; then
  mkdir -p "$tmp/app/subprojects"
  ln -s "$(cd "$src/../.." && pwd)" "$tmp/app/subprojects/simdkern"
  cp "$src/consumer.c" "$tmp/app/"
  cat >"$tmp/app/meson.build" <<'MESON'
project('consumer', 'c', default_options : ['c_std=c11'])
simdkern_dep = dependency('simdkern', default_options : ['tests=false', 'bench=disabled'])
executable('consumer', 'consumer.c', dependencies : simdkern_dep)
MESON
  # --wrap-mode=forcefallback: take the subproject even when a simdkern is installed on this machine
  CC=$cc $meson setup "$tmp/build" "$tmp/app" --wrap-mode=forcefallback >"$tmp/setup.log" 2>&1 \
    || { cat "$tmp/setup.log"; exit 1; }
  ninja -C "$tmp/build" -j 2 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
  "$tmp/build/consumer"
  exit $?
fi
dest=$tmp/dest
$meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
pc=$(find "$dest" -name simdkern.pc | head -n 1)
cfg=$(find "$dest" -name simdkern-config.cmake | head -n 1)
hdr=$(find "$dest" -name simdkern.h | head -n 1)
lib=$(find "$dest" -name libsimdkern.a | head -n 1)
for f in "$pc" "$cfg" "$hdr" "$lib"; do
  [ -n "$f" ] || { echo "FAIL: incomplete install:"; find "$dest"; exit 1; }
done

case $mode in
pkgconfig)
  export PKG_CONFIG_PATH="${pc%/*}" PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_LIBDIR="${pc%/*}"
  libs=$(pkg-config --static --libs simdkern)
  cflags=$(pkg-config --cflags simdkern)
  echo "pkg-config --static --libs simdkern: $libs"
  case " $libs " in *" -lsimdkern "*) ;; *) echo "FAIL: no -lsimdkern"; exit 1 ;; esac
  case " $libs " in *" -lm "*) ;; *) echo "FAIL: no -lm"; exit 1 ;; esac
  case " $libs " in
  *" -pthread "*|*" -lpthread "*) ;;
  *) echo "FAIL: no -pthread/-lpthread"; exit 1 ;;
  esac
  # shellcheck disable=SC2086
  "$cc" $extra $cflags -o "$tmp/consumer" "$src/consumer.c" $libs
  ;;
cmake)
  # found the way a user finds it: through the (staged) prefix, not by pointing at the config dir
  CC=$cc cmake -S "$src" -B "$tmp/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$dest$prefix" -DCMAKE_C_FLAGS="$extra" \
    -DCMAKE_EXE_LINKER_FLAGS="$extra" >"$tmp/cmake.log" 2>&1 \
    || { cat "$tmp/cmake.log"; exit 1; }
  cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; exit 1; }
  grep -h "simdkern_DIR" "$tmp/cmake/CMakeCache.txt" || true
  cp "$tmp/cmake/consumer" "$tmp/consumer"
  ;;
esac
"$tmp/consumer"
