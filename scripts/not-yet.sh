#!/usr/bin/env bash
# Placeholder for Makefile targets whose feature has not been built yet: says what is
# missing and fails, so nobody mistakes an empty target for a working one.
case "$1" in
  bench-vs-slurm) what="the side-by-side harness against Slurm is not built yet" ;;
  *)              what="unknown target" ;;
esac
echo "make $1: not available yet: $what" >&2
exit 1
