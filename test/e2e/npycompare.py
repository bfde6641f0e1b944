#!/usr/bin/env python3
"""Compares .npy files the way the corpus REFERENCE.md says (numpy.allclose):
|actual - expected| <= atol + rtol * |expected|, element by element, with equal dtypes and
shapes; NaNs must match NaNs. Exit 0 when every pair matches, 1 otherwise, printing the
worst element.

    npycompare.py [--rtol R] [--atol A] ACTUAL EXPECTED [ACTUAL EXPECTED ...]
"""
import argparse
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rtol", type=float, default=0.0)
    p.add_argument("--atol", type=float, default=0.0)
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    if len(a.files) % 2:
        p.error("give ACTUAL EXPECTED pairs")
    ok = True
    for actual_path, expected_path in zip(a.files[0::2], a.files[1::2]):
        actual, expected = np.load(actual_path), np.load(expected_path)
        if actual.dtype != expected.dtype or actual.shape != expected.shape:
            print("MISMATCH %s: %s%s, expected %s%s" % (actual_path, actual.dtype,
                  list(actual.shape), expected.dtype, list(expected.shape)))
            ok = False
            continue
        if actual.dtype.kind in "fc":
            x, y = actual.astype(np.float64), expected.astype(np.float64)
            close = np.isclose(x, y, rtol=a.rtol, atol=a.atol, equal_nan=True)
            # Equal values (infinities included) and NaN pairs count as no error.
            with np.errstate(invalid="ignore"):
                err = np.where((np.isnan(x) & np.isnan(y)) | (x == y), 0, np.abs(x - y))
        else:
            close = actual == expected
            err = (actual != expected).astype(np.float64)
        if close.all():
            print("OK %s: %s%s max_abs_err=%.3g" % (actual_path, actual.dtype,
                  list(actual.shape), float(err.max()) if err.size else 0.0))
            continue
        ok = False
        i = np.unravel_index(np.argmax(np.where(close, -1, err)), actual.shape)
        print("MISMATCH %s: %d of %d elements differ; at %s got %r, expected %r" % (
            actual_path, int((~close).sum()), close.size, tuple(int(v) for v in i),
            actual[i], expected[i]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
