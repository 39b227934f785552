#!/bin/sh
# numpy and pecheck's .npy reader/writer agree both ways (tests/npy_numpy_check.sh).
exec sh "$(dirname "$0")/npy_numpy_check.sh" "${BUILD:-build}/tests/npy_test"
