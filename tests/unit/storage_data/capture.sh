#!/bin/sh
# Re-captures the fio reports under fio-<version>/: two "nodes" (a, b) running the storage_bench
# role's five fio phases at the same time against one directory on this machine, with the
# same command lines as roles/storage_bench/templates/storage-bench-fio.sh.j2 (small sizes).
# Usage: sh capture.sh <scratch-dir>    (needs fio on PATH; writes into ./fio-<version>)
set -eu
scratch=$1
out=$(dirname "$0")/$(fio --version)  # fio-3.33, fio-3.42, ...
mkdir -p "$scratch" "$out/a" "$out/b"
phase() {  # phase <name> <host> <peer>
  name=$1 host=$2 peer=$3
  case $name in
    write) set -- --rw=write --bs=1M --size=32M --numjobs=2 --end_fsync=1 \
             --filename_format="ckpt.$host.\$jobnum" ;;
    read) set -- --rw=read --bs=1M --size=32M --numjobs=2 --direct=1 --allow_file_create=0 \
             --filename_format="ckpt.$peer.\$jobnum" ;;
    mdcreate) set -- --ioengine=filecreate --create_on_open=1 --nrfiles=500 --filesize=4k --bs=4k \
             --openfiles=1 --numjobs=2 --filename_format="md.$host/f.\$jobnum.\$filenum" ;;
    mdstat) set -- --ioengine=filestat --nrfiles=500 --filesize=4k --bs=4k --openfiles=1 \
             --numjobs=2 --filename_format="md.$host/f.\$jobnum.\$filenum" ;;
    mddelete) set -- --ioengine=filedelete --nrfiles=500 --filesize=4k --bs=4k --openfiles=1 \
             --numjobs=2 --filename_format="md.$host/f.\$jobnum.\$filenum" ;;
  esac
  fio --name="$name" --directory="$scratch" --group_reporting --output-format=json "$@" \
    > "$out/$host/$name.json"
}
mkdir -p "$scratch/md.a" "$scratch/md.b"
for name in write read mdcreate mdstat mddelete; do
  phase "$name" a b & phase "$name" b a & wait
done
rm -rf "$scratch"
