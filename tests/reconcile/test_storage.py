"""Content-addressed inputs and verified outputs, on a local folder and on S3."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconcile.storage import InputCorrupt, OutputUnverified, Storage, list_sources, sha256


def test_input_is_content_addressed_and_idempotent(storage: Storage) -> None:
    uri, digest = storage.put_input(b"%PDF-1.4 statement")
    assert digest == sha256(b"%PDF-1.4 statement")
    assert uri.endswith(f"inputs/sha256/{digest}.pdf")
    assert storage.put_input(b"%PDF-1.4 statement") == (uri, digest)
    assert storage.read(uri) == b"%PDF-1.4 statement"


def test_outputs_are_committed_verified_and_leave_no_temporaries(storage: Storage) -> None:
    digests = storage.write_outputs("results/j-1", {"a.json": b"{}", "b.csv": b"x\n"}, "t1")
    assert digests == {"a.json": sha256(b"{}"), "b.csv": sha256(b"x\n")}
    assert storage.digest_of(storage.uri("results/j-1/a.json")) == sha256(b"{}")
    names = storage.fs.ls(f"{storage.root}/results/j-1", detail=False)
    assert sorted(n.rsplit("/", 1)[-1] for n in names) == ["a.json", "b.csv"]


def test_missing_object_has_no_digest(storage: Storage) -> None:
    assert storage.digest_of(storage.uri("results/none/statement.json")) is None


def test_many_objects_are_read_at_once_with_their_digests(storage: Storage) -> None:
    files = {f"s{n}.json": f"{{{n}}}".encode() for n in range(20)}
    storage.write_outputs("results/j-1", files, "t1")
    uris = [storage.uri(f"results/j-1/{name}") for name in files]
    missing = storage.uri("results/j-2/statement.json")
    read = storage.read_many([*uris, missing, uris[0]])
    assert read == {missing: None} | {u: (d, sha256(d)) for u, d in zip(
        uris, files.values(), strict=True)}


def test_corrupted_write_is_refused(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    real = storage.fs.pipe_file
    monkeypatch.setattr(storage.fs, "pipe_file", lambda path, data, **kw: real(path, data[:-1]))
    with pytest.raises(OutputUnverified):
        storage.write_outputs("results/j-2", {"a.json": b"{1}"}, "t1")


def test_digests_rendered_elsewhere_are_checked_against_the_stored_bytes(
        storage: Storage) -> None:
    """A write handed each file's digest (hashed where it was rendered) stamps the objects
    with it, and refuses one whose bytes do not have it."""
    files = {"a.json": b"{}", "b.csv": b"x\n"}
    stamps = storage.write_stamped("results/j-3/1-a", files, "t1",
                                   digests={n: sha256(d) for n, d in files.items()})
    assert {n: s.sha256 for n, s in stamps.items()} == {n: sha256(d) for n, d in files.items()}
    assert storage.digest_of(stamps["b.csv"].uri) == sha256(b"x\n")
    with pytest.raises(OutputUnverified):
        storage.write_stamped("results/j-3/2-a", files, "t1",
                              digests={"a.json": sha256(b"{}"), "b.csv": sha256(b"y\n")})


def test_stored_input_whose_bytes_changed_is_refused(storage: Storage) -> None:
    uri, digest = storage.put_input(b"%PDF-1.4 statement")
    assert storage.read_input(uri, digest) == b"%PDF-1.4 statement"
    storage.fs.pipe_file(storage.path(storage.key(uri)), b"%PDF-1.4 statemenT")
    with pytest.raises(InputCorrupt):
        storage.read_input(uri, digest)


def test_list_sources_on_folders_globs_and_s3(tmp_path: Path, s3_endpoint: str,
                                              s3_bucket: str) -> None:
    (tmp_path / "in" / "sub").mkdir(parents=True)
    for name in ("a.pdf", "sub/b.PDF", "notes.txt", "a.truth.json", ".DS_Store"):
        (tmp_path / "in" / name).write_bytes(b"x")
    # every file, whatever its name (an export is often `.txt`), but hidden files and JSON
    assert [Path(p).name for p in list_sources(str(tmp_path / "in"))] == [
        "a.pdf", "notes.txt", "b.PDF"]
    assert [Path(p).name for p in list_sources(str(tmp_path / "in" / "*.txt"))] == ["notes.txt"]
    opts = {"client_kwargs": {"endpoint_url": s3_endpoint}, "skip_instance_cache": True}
    store = Storage(s3_bucket, opts)
    store.fs.pipe_file(f"{store.root}/inbox/x.pdf", b"%PDF")
    assert list_sources(f"{s3_bucket}/inbox/", opts) == [f"{s3_bucket}/inbox/x.pdf"]
    with pytest.raises(FileNotFoundError):
        list_sources(str(tmp_path / "missing"))
