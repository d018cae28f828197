#!/usr/bin/env python3
"""Tables of medians from a cxmat_runtime_bench JSON file (run_benchmarks.sh).

usage: summarize.py results.json "<compiler>" "<flags>"
"""
import json
import re
import sys


def by_type_and_size(name: str):
    """float before double, then by the leading size in the name (5x6 before 16x64)."""
    scalar = 0 if "/float/" in name else 1
    size = re.search(r"/(\d+)x\d+", name)
    return (scalar, int(size.group(1)) if size else 0, name)


def main() -> None:
    path, compiler, flags = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    median, cv, rate, paired = {}, {}, {}, {}
    for b in data["benchmarks"]:
        name = b["run_name"]
        if b.get("aggregate_name") == "median":
            median[name] = b["cpu_time"]
            if "items_per_second" in b:
                rate[name] = b["items_per_second"]
            if "ratio" in b:
                paired[name] = (b["ratio"], b["cxmat_ns"], b["eigen_ns"])
        elif b.get("aggregate_name") == "cv":
            cv[name] = b["ratio"] if "ratio" in b else b["cpu_time"]
    ctx = data["context"]
    load = ", ".join(f"{x:.1f}" for x in ctx.get("load_avg", []))
    reps = data["benchmarks"][0].get("repetitions", "?")
    print(f"### {compiler}, `{flags}`\n")
    print(f"{ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, load average at start {load}; "
          f"medians of {reps} repetitions run in random order (cv: their coefficient of variation).\n")

    print("Multi-head attention with W_o. *Paired*: cxmat and Eigen timed in alternating bursts, the "
          "median of the per-burst ratios (the figure to compare); *separate*: the ratio of separately "
          "timed medians (CPU time), more exposed to the machine's drift.\n")
    print("| scalar | n x d, H | cxmat | Eigen | **cxmat / Eigen (paired)** | cv | separate |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in sorted((k for k in paired if k.startswith("mha/paired/")), key=by_type_and_size):
        _, _, scalar, shape, heads = name.split("/")
        ratio, c_ns, e_ns = paired[name]
        own, eigen = name.replace("/paired/", "/cxmat/"), name.replace("/paired/", "/eigen/")
        separate = f"{median[own] / median[eigen]:.2f}" if own in median and eigen in median else "—"
        print(f"| {scalar} | {shape}, {heads} | {c_ns / 1000:.2f} µs | {e_ns / 1000:.2f} µs "
              f"| **{ratio:.2f}** | {cv.get(name, 0):.2f} | {separate} |")

    encoders = sorted((k for k in paired if k.startswith("encoder/paired/")), key=by_type_and_size)
    if encoders:
        print("\nTransformer encoder layer (`encoder_layer`, ReLU, post-norm), paired and separate as above.\n")
        print("| scalar | n x d_model, H, d_ff | cxmat | Eigen | **cxmat / Eigen (paired)** | cv | separate |")
        print("|---|---|---:|---:|---:|---:|---:|")
    for name in encoders:
        _, _, scalar, shape, heads, dff = name.split("/")
        ratio, c_ns, e_ns = paired[name]
        own, eigen = name.replace("/paired/", "/cxmat/"), name.replace("/paired/", "/eigen/")
        separate = f"{median[own] / median[eigen]:.2f}" if own in median and eigen in median else "—"
        print(f"| {scalar} | {shape}, {heads}, {dff[1:]} | {c_ns / 1000:.2f} µs | {e_ns / 1000:.2f} µs "
              f"| **{ratio:.2f}** | {cv.get(name, 0):.2f} | {separate} |")

    print("\n| softmax_rows | n x n | cxmat | loop over std::exp | time cxmat / loop |")
    print("|---|---|---:|---:|---:|")
    for name in sorted((k for k in median if k.startswith("softmax_rows/cxmat/")), key=by_type_and_size):
        ref = name.replace("/cxmat/", "/std_exp_loop/")
        if ref not in median:
            continue
        _, _, scalar, shape = name.split("/")
        print(f"| {scalar} | {shape} | {rate[name] / 1e6:.0f} M/s | {rate[ref] / 1e6:.0f} M/s "
              f"| {median[name] / median[ref]:.2f} |")

    print("\n| exp over an array | arguments | cxmat::exp | std::exp | softmax's kernel (x <= 0) |")
    print("|---|---|---:|---:|---:|")
    for name in sorted((k for k in rate if k.startswith("exp/cxmat/")), key=by_type_and_size):
        ref = name.replace("/cxmat/", "/std/")
        kernel = name.replace("/cxmat/", "/softmax_kernel/")
        _, _, scalar, lo, hi = name.split("/")
        own = f"{rate[kernel] / 1e6:.0f} M/s" if kernel in rate else "—"
        print(f"| {scalar} | [{lo}, {hi}] | {rate[name] / 1e6:.0f} M/s | {rate.get(ref, 0) / 1e6:.0f} M/s | {own} |")

    print("\n| embedded example step (host) | median |")
    print("|---|---:|")
    for name in sorted(k for k in median if k.startswith("embedded/")):
        print(f"| {name[len('embedded/'):]} | {median[name]:.0f} ns |")


if __name__ == "__main__":
    main()
