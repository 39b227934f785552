"""The build backend of the pecheck Python package (PEP 517, PEP 660).

The standard library only, so that `pip install ./python` needs nothing
from a package index (build isolation or not).  It reads pyproject.toml's
[project] table and writes:
  - a wheel of the pecheck package (pecheck/*.py), tagged py3-none-any;
  - with config setting bundle=PATH (or $PECHECK_BUNDLE): the same with the
    pecheck binary PATH as pecheck/bin/pecheck and the report's gnuplot
    scripts (reports/*.gp, families/*/*.gp of the source tree) beside it,
    tagged for this platform (`make wheel`);
    A wheel without the binary built from a checkout (`pip install ./python`)
    records the checkout's path in pecheck/_checkout.py, so that the
    installed package finds its build/pecheck from any folder;
  - an editable wheel (pip install -e): a .pth file naming this folder;
  - an sdist.
Run as a script, it builds the bundled wheel: pecheck_backend.py --bundle
BINARY --out DIR (prints the wheel's path).
"""
import base64
import glob
import hashlib
import io
import os
import sys
import sysconfig
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
SOURCE_TREE = os.path.dirname(ROOT)                                 # the checkout, when there is one
# zip entries' times: fixed, so that the same files make the same wheel
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def _project():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise RuntimeError("building pecheck needs Python 3.11 (tomllib) or the tomli "
                               "package to read pyproject.toml") from None
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _dist_name(p):
    return "%s-%s" % (p["name"].replace("-", "_"), p["version"])


def _metadata(p):
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + p["version"],
             "Summary: " + p.get("description", "")]
    if p.get("license", {}).get("text"):
        lines.append("License: " + p["license"]["text"])
    if p.get("requires-python"):
        lines.append("Requires-Python: " + p["requires-python"])
    for dep in p.get("dependencies", []):
        lines.append("Requires-Dist: " + dep)
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (d, extra) for d in deps]
    readme = p.get("readme")
    body = ""
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _entry_points(p):
    out = ""
    if p.get("scripts"):
        out += "[console_scripts]\n" + "".join("%s = %s\n" % kv for kv in p["scripts"].items()) + "\n"
    for group, eps in p.get("entry-points", {}).items():
        out += "[%s]\n" % group + "".join("%s = %s\n" % kv for kv in eps.items()) + "\n"
    return out


def _bundle(config_settings):
    path = (config_settings or {}).get("bundle") or os.environ.get("PECHECK_BUNDLE")
    return os.path.abspath(path) if path else None


def _platform_tag():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


class _Wheel:
    """A wheel being written: files, then the dist-info and its RECORD."""

    def __init__(self, directory, p, tag):
        self.p, self.tag = p, tag
        self.name = "%s-%s.whl" % (_dist_name(p), tag)
        self.path = os.path.join(directory, self.name)
        self.zip = zipfile.ZipFile(self.path + ".tmp", "w", zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, arcname, data, mode=0o644):
        info = zipfile.ZipInfo(arcname, ZIP_TIME)
        info.external_attr = (0o100000 | mode) << 16  # a regular file and its permissions
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (arcname, digest, len(data)))

    def add_file(self, arcname, path):
        with open(path, "rb") as f:
            data = f.read()
        self.add(arcname, data, 0o755 if os.access(path, os.X_OK) else 0o644)

    def finish(self, purelib):
        info = _dist_name(self.p) + ".dist-info/"
        for name, text in _dist_info(self.p, self.tag, purelib).items():
            self.add(info + name, text.encode("utf-8"))
        self.zip.writestr(zipfile.ZipInfo(info + "RECORD", ZIP_TIME),
                          "\n".join(self.record + [info + "RECORD,,"]) + "\n")
        self.zip.close()
        os.replace(self.path + ".tmp", self.path)
        return self.name


def _dist_info(p, tag, purelib):
    files = {"METADATA": _metadata(p),
             "WHEEL": "Wheel-Version: 1.0\nGenerator: pecheck_backend\nRoot-Is-Purelib: %s\nTag: %s\n"
                      % ("true" if purelib else "false", tag),
             "entry_points.txt": _entry_points(p),
             "top_level.txt": "pecheck\n"}
    lic = os.path.join(SOURCE_TREE, "LICENSE")
    if os.path.isfile(lic):
        with open(lic, encoding="utf-8") as f:
            files["LICENSE"] = f.read()
    return files


def _checkout():
    """The checkout this package is built from (its absolute path), or None
    when python/ is not in one (an sdist unpacked elsewhere): the folder
    above python/ holding the Makefile and the plugin header."""
    marks = ("Makefile", os.path.join("include", "pecheck_plugin.h"))
    if all(os.path.isfile(os.path.join(SOURCE_TREE, m)) for m in marks):
        return SOURCE_TREE
    return None


def _checkout_module(path):
    """pecheck/_checkout.py of a wheel built from the checkout PATH."""
    return ('"""Written by pecheck_backend.py when this package was built: the checkout\n'
            'it was built from, whose build/pecheck the package runs (_binary.py)."""\n'
            'CHECKOUT = %r\n' % path).encode("utf-8")


def _package_files():
    return sorted(glob.glob(os.path.join(ROOT, "pecheck", "*.py")))


def _report_scripts():
    """(arcname, path) of the gnuplot scripts `pecheck report` reads: the
    binary at pecheck/bin/ finds pecheck/reports/ and pecheck/families/."""
    found = [("pecheck/reports/" + os.path.basename(f), f)
             for f in sorted(glob.glob(os.path.join(SOURCE_TREE, "reports", "*.gp")))]
    found += [("pecheck/" + os.path.relpath(f, SOURCE_TREE).replace(os.sep, "/"), f)
              for f in sorted(glob.glob(os.path.join(SOURCE_TREE, "families", "*", "*.gp")))]
    if not found:
        raise RuntimeError("bundle: no reports/*.gp under %s (a bundled wheel is built from the "
                           "source tree)" % SOURCE_TREE)
    return found


# ---- PEP 517 ------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    binary = _bundle(config_settings)
    if binary and not os.access(binary, os.X_OK):
        raise RuntimeError("bundle=%s: no executable pecheck binary there (run make first)" % binary)
    w = _Wheel(wheel_directory, p, "py3-none-" + _platform_tag() if binary else "py3-none-any")
    for f in _package_files():
        w.add_file("pecheck/" + os.path.basename(f), f)
    checkout = None if binary else _checkout()
    if checkout:
        w.add("pecheck/_checkout.py", _checkout_module(checkout))
    if binary:
        with open(binary, "rb") as f:
            w.add("pecheck/bin/pecheck", f.read(), 0o755)
        for arcname, path in _report_scripts():
            w.add_file(arcname, path)
    return w.finish(purelib=not binary)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    w = _Wheel(wheel_directory, p, "py3-none-any")
    w.add("__editable__.pecheck.pth", (ROOT + "\n").encode("utf-8"))
    return w.finish(purelib=True)


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = _dist_name(p)
    name = base + ".tar.gz"
    files = ["pyproject.toml", p.get("readme", "README.md"), "backend/pecheck_backend.py"]
    files += [os.path.relpath(f, ROOT) for f in _package_files()]
    path = os.path.join(sdist_directory, name)
    with tarfile.open(path + ".tmp", "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in files:
            tar.add(os.path.join(ROOT, rel), arcname=base + "/" + rel)
        pkg_info = _metadata(p).encode("utf-8")
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    os.replace(path + ".tmp", path)
    return name


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="build pecheck's wheel with the binary bundled")
    ap.add_argument("--bundle", required=True, help="the pecheck binary (build/pecheck)")
    ap.add_argument("--out", required=True, help="folder of the wheel")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    try:
        print(os.path.join(a.out, build_wheel(a.out, {"bundle": a.bundle})))
    except (RuntimeError, OSError) as e:
        sys.stderr.write("pecheck_backend.py: %s\n" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
