"""Writes a wheel (PEP 427) from a folder laid out as site-packages plus the scripts for the
environment's bin/: the archive, its dist-info (METADATA, WHEEL, RECORD) and the tag of the
interpreter that runs this file. Standard library only, so the build needs nothing installed."""
import base64
import hashlib
import os
import stat
import sys
import sysconfig
import zipfile

# A fixed date keeps the archive the same for the same files.
_ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def interpreter_tag():
    """cp311-cp311-linux_x86_64: this interpreter, its ABI (with its flags, e.g. d) and platform."""
    python = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s%s-%s" % (python, python, getattr(sys, "abiflags", ""), platform)


def dist_info_name(name, version):
    return "%s-%s.dist-info" % (name, version)


def metadata_text(name, version, summary, requires_python):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nRequires-Python: %s\n"
            % (name, version, summary, requires_python))


def write_dist_info(folder, name, version, summary, requires_python, tag):
    """The dist-info files except RECORD (which pip's metadata hook does not need)."""
    dist_info = os.path.join(folder, dist_info_name(name, version))
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata_text(name, version, summary, requires_python))
    with open(os.path.join(dist_info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write("Wheel-Version: 1.0\nGenerator: ringprof build_backend\nRoot-Is-Purelib: false\nTag: %s\n" % tag)
    return os.path.basename(dist_info)


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "sha256=" + digest


def _add(archive, record, arcname, data, executable):
    info = zipfile.ZipInfo(arcname, date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
    archive.writestr(info, data)
    record.append("%s,%s,%d" % (arcname, _record_hash(data), len(data)))


def _files_under(root):
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            yield os.path.join(folder, name)


def write_wheel(wheel_directory, name, version, summary, requires_python, site_root, scripts_root):
    """Packs site_root (-> site-packages) and scripts_root (-> the environment's bin/) into
    <wheel_directory>/<name>-<version>-<tag>.whl and returns the file's name. Symbolic links
    cannot be stored in a wheel: the caller leaves none in the trees."""
    tag = interpreter_tag()
    wheel_name = "%s-%s-%s.whl" % (name, version, tag)
    meta_root = os.path.join(os.path.dirname(site_root), "dist_info")
    dist_info = write_dist_info(meta_root, name, version, summary, requires_python, tag)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w") as archive:
        trees = [(site_root, ""), (scripts_root, "%s-%s.data/scripts/" % (name, version)),
                 (os.path.join(meta_root, dist_info), dist_info + "/")]
        for root, prefix in trees:
            for path in _files_under(root):
                if os.path.islink(path):
                    raise RuntimeError("ringprof build: %s is a symbolic link, which a wheel cannot hold" % path)
                with open(path, "rb") as f:
                    data = f.read()
                arcname = prefix + os.path.relpath(path, root).replace(os.sep, "/")
                _add(archive, record, arcname, data, os.stat(path).st_mode & stat.S_IXUSR)
        record_name = dist_info + "/RECORD"
        record.append(record_name + ",,")
        info = zipfile.ZipInfo(record_name, date_time=_ZIP_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, "\n".join(record) + "\n")
    return wheel_name
