#!/bin/sh
# Code size and stack use of the int8 layer (n = 8, d_model = 16, H = 2, W_o) on Cortex-M:
# cross-compiles embedded_layer.cpp with arm-none-eabi-g++ -Os and prints, per core, the size of
# each function (text bytes, from nm) and its stack use (from -fstack-usage; "static" = exact).
# Usage: benchmarks/quantized/size.sh   (needs gcc-arm-none-eabi)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for cpu in cortex-m4 cortex-m0plus; do
  arm-none-eabi-g++ -std=c++20 -Os -mcpu=$cpu -mthumb -fno-exceptions -fno-rtti -ffunction-sections \
    -DCXMAT_Q8_SIZE_PLAIN_ONLY -I"$root/include" -c "$here/embedded_layer.cpp" -o "$out/plain-$cpu.o"
  arm-none-eabi-size -A "$out/plain-$cpu.o" | awk -v cpu=$cpu '
    $1 ~ /^\.text/ { text += $2 } END { printf "%s, the layer without masks alone: code %d bytes\n", cpu, text }'
  arm-none-eabi-g++ -std=c++20 -Os -mcpu=$cpu -mthumb -fno-exceptions -fno-rtti -ffunction-sections \
    -fstack-usage -I"$root/include" -c "$here/embedded_layer.cpp" -o "$out/layer-$cpu.o"
  echo "$cpu:"
  # Code: every function of the object (the entry points and the out-of-line kernels, W = inline).
  arm-none-eabi-size -A "$out/layer-$cpu.o" | awk '
    $1 ~ /^\.text/ { text += $2 } $1 ~ /^\.rodata/ { ro += $2 }
    END { printf "  code %d bytes (.text, both entry points and every kernel), flash data %d bytes (.rodata)\n", text, ro }'
  arm-none-eabi-nm --size-sort -S "$out/layer-$cpu.o" | while read -r addr size kind name; do
    case $kind in
      t|T|W) printf '    %5d bytes  %s\n' "$((0x$size))" "$(echo "$name" | arm-none-eabi-c++filt | cut -c1-110)" ;;
    esac
  done
  # Stack: each function's frame; the deepest call chain is the entry point + heads_into +
  # softmax_row + exp_on_negative_values (+ the doubling multiply).
  sed 's/^[^:]*:[0-9]*:[0-9]*:/  stack /' "$out/layer-$cpu.su" | cut -c1-140
done
