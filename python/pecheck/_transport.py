"""How arrays reach the binary: in memory, not through a file on disk.

Each array is written once, as .npy, into an anonymous in-memory file
(memfd_create: shared memory with a file's semantics: a size, offsets,
reads from any position) that the binary inherits as an open descriptor.
A folder of symbolic links names them for the command line: NAME.npy ->
/proc/self/fd/N, resolved in the binary's own process, where descriptor N
is the inherited file.  The binary runs in that folder, so its messages and
JSON name the arrays as the user knows them (cos.npy, sin.npy, table.npy).

A failing run's files are copied to a kept folder (`keep`), so that the
replay line it prints runs as printed; a passing run leaves nothing.
Without memfd_create (not Linux) the files are written into the folder.
"""
import hashlib
import os
import shutil
import tempfile

from . import _arrays, _cleanup, settings


def _memfd(name):
    """An in-memory file's descriptor, or None where there is none."""
    create = getattr(os, "memfd_create", None)
    if create is None:
        return None
    try:
        return create(name, 0)  # no MFD_CLOEXEC: subprocess's pass_fds hands it over
    except OSError:
        return None


class Staging:
    """The input files of one pecheck run: `with Staging() as st:`."""

    def __init__(self):
        self.dir = _cleanup.make_dir("pecheck-")  # removed on SIGTERM too
        self.fds = []
        self._fd_of = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        shutil.rmtree(self.dir, ignore_errors=True)
        _cleanup.drop_dir(self.dir)

    def _open(self, name):
        """A writable file object for NAME (in memory where possible)."""
        fd = _memfd(name)
        if fd is None:
            return open(os.path.join(self.dir, name), "wb")
        self.fds.append(fd)
        self._fd_of[name] = fd
        os.symlink("/proc/self/fd/%d" % fd, os.path.join(self.dir, name))
        return open(fd, "wb", closefd=False)

    def add_array(self, name, array):
        """NAME (e.g. 'cos.npy') holds ARRAY as .npy (C order, little-endian);
        returns NAME, the argument to give the binary."""
        np = _arrays.numpy()
        with self._open(name) as f:
            np.save(f, np.ascontiguousarray(array), allow_pickle=False)
        return name

    def add_bytes(self, name, data):
        with self._open(name) as f:
            f.write(data)
        return name

    def names(self):
        return sorted(os.listdir(self.dir))

    def digest(self):
        """A short hash of every file's bytes (names the kept folder, so that
        the same failing input is kept once however often it fails)."""
        h = hashlib.blake2b(digest_size=8)
        for name in self.names():
            h.update(name.encode() + b"\0")
            with self._reader(name) as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        return h.hexdigest()

    def _reader(self, name):
        fd = self._fd_of.get(name)
        if fd is None:
            return open(os.path.join(self.dir, name), "rb")
        os.lseek(fd, 0, os.SEEK_SET)
        return open(fd, "rb", closefd=False)

    def keep(self, root):
        """Copy every file into ROOT/<digest>/ (a real folder); returns it."""
        dest = os.path.join(root, self.digest())
        os.makedirs(dest, exist_ok=True)
        for name in self.names():
            with self._reader(name) as src, open(os.path.join(dest, name) + ".tmp", "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            os.replace(os.path.join(dest, name) + ".tmp", os.path.join(dest, name))
        return dest


def keep_root(keep):
    """The folder a failing run's inputs are copied into: KEEP when given
    (a path), else $PECHECK_KEEP, else the pytest plugin's (--pecheck-keep,
    or pecheck-failed/ in the session's temporary folder), else
    pecheck-failed/ in the temporary folder; None when KEEP is False."""
    if keep is False:
        return None
    if keep not in (None, True):
        return os.fspath(keep)
    return (os.environ.get("PECHECK_KEEP") or settings.keep_root()
            or os.path.join(tempfile.gettempdir(), "pecheck-failed"))
