#!/usr/bin/env bash
# Packs build/bin/lockstep with every shared library it needs and Debian's Open MPI runtime
# (mpirun, orted, its components and help files, PMIx) into one folder that runs on an x86-64
# Linux machine where none of these packages is installed and none can be installed: a
# cluster node or a lent benchmark machine with glibc 2.34 or newer. glibc itself stays the
# host's. Open MPI is relocatable through OPAL_PREFIX (`ompi_info --path all` shows it moving).
#
# Usage: scripts/portable-bundle.sh DIR; then on the other machine, from the folder holding
# DIR: `source DIR/env.sh` and run `lockstep` or `mpirun` as usual.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: scripts/portable-bundle.sh DIR}
lockstep=build/bin/lockstep
[[ -x $lockstep ]] || { echo "build $lockstep first (make build)" >&2; exit 2; }
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
strip -o "$dest/bin/lockstep" "$lockstep"
ompi=/usr/lib/x86_64-linux-gnu/openmpi
pmix=/usr/lib/x86_64-linux-gnu/pmix2
# Open MPI keeps its own layout under the prefix, so that OPAL_PREFIX finds its components.
mkdir -p "$dest/usr/bin" "$dest/usr/lib/x86_64-linux-gnu" "$dest/usr/share"
cp -a "$ompi" "$pmix" "$dest/usr/lib/x86_64-linux-gnu/"
rm -rf "$dest/usr/lib/x86_64-linux-gnu/openmpi/include" "$dest/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.a" "$dest/usr/lib/x86_64-linux-gnu/pmix2/include"
cp -a /usr/share/openmpi "$dest/usr/share/"
cp /usr/bin/orterun /usr/bin/orted "$dest/usr/bin/"
ln -sf orterun "$dest/usr/bin/mpirun"
# Every library that the binaries and components load, except glibc's own, which must be the
# host's (a mixed glibc does not load).
elves=("$dest/bin/lockstep" /usr/bin/orterun /usr/bin/orted)
mapfile -t -O ${#elves[@]} elves < <(find "$ompi/lib" "$pmix/lib" -name '*.so*' -type f)
for elf in "${elves[@]}"; do
  ldd "$elf" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libresolv.so.*|libutil.so.*) ;;
    *) real=$(readlink -f "$lib")
       [[ $real == "$ompi"/* || $real == "$pmix"/* ]] || cp -L "$lib" "$dest/lib/" ;;
  esac
done
cat > "$dest/env.sh" <<'SH'
# Source this file to run the bundled lockstep and Open MPI (scripts/portable-bundle.sh).
bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$bundle/bin:$bundle/usr/bin:$PATH"
export LD_LIBRARY_PATH="$bundle/lib:$bundle/usr/lib/x86_64-linux-gnu/openmpi/lib:$bundle/usr/lib/x86_64-linux-gnu/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# PMIx finds its components (and so no help file it cannot open) only when told where.
export OPAL_PREFIX="$bundle/usr" PMIX_MCA_mca_base_component_path="$bundle/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix"
# Debian's /etc/openmpi/openmpi-mca-params.conf, which does not travel: shared memory and TCP
# only, no InfiniBand or UCX components.
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_mtl='^ofi' OMPI_MCA_btl='^uct,openib,ofi' \
  OMPI_MCA_pml='^ucx' OMPI_MCA_osc='^ucx,pt2pt'
SH
du -sh "$dest"
