"""Tesseract processes kept from page to page, on the real binary: they read as a fresh
process reads, start once, and are replaced, not reused, after a timeout, a failure or a
fork."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from parsers.ocr.reread import CONFIG
from parsers.ocr.tesseract import tesseract_env
from parsers.ocr.tesseract_stream import TesseractStopped, TesseractStreams
from tests.pids import alive, ended_within

FONT = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 28)
WORDS = ["12-Jan-2026", "GROCERIES", "1,204.50", "5TH AVE", "Cr"]


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """One word per image, as the second reading's crops are: black on white, 8-bit PGM."""
    folder = tmp_path_factory.mktemp("words")
    names = []
    for n, word in enumerate(WORDS):
        img = Image.new("L", (300, 70), 255)
        ImageDraw.Draw(img).text((14, 16), word, fill=0, font=FONT)
        path = folder / f"{n}.pgm"
        path.write_bytes(b"P5\n%d %d\n255\n" % img.size + img.tobytes())
        names.append(str(path))
    return names


@pytest.fixture(scope="module")
def noise(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Black and white noise: seconds of tesseract's reading."""
    path = tmp_path_factory.mktemp("noise") / "noise.pgm"
    Image.frombytes("L", (4000, 4000), os.urandom(4000 * 4000)) \
        .point(lambda v: 255 if v > 128 else 0).save(path)
    return path


@pytest.fixture
def streams() -> TesseractStreams:
    s = TesseractStreams(CONFIG)
    yield s
    s.close()


def fresh(images: list[str], folder: Path) -> list[list[list[str]]]:
    """The word rows of each image as one fresh `tesseract LIST stdout ... tsv` prints them."""
    listing = folder / "list.txt"
    listing.write_text("".join(f"{name}\n" for name in images))
    out = subprocess.run(["tesseract", str(listing), "stdout", *CONFIG, "tsv"],
                         capture_output=True, check=True, env=tesseract_env()).stdout
    pages: list[list[list[str]]] = [[] for _ in images]
    for line in out.decode().splitlines()[1:]:
        row = line.split("\t")
        if row[0] == "5":
            pages[int(row[1]) - 1].append(row)
    return pages


def words(pages: list[list[list[str]]]) -> list[list[tuple[str, ...]]]:
    """Each image's words: box, confidence and text (the page number aside)."""
    return [[tuple(row[2:]) for row in rows] for rows in pages]


def pid(streams: TesseractStreams) -> set[int]:
    return {s._proc.pid for s in streams._all if s._proc is not None}


def test_batches_read_as_a_fresh_process_reads_them_and_start_one_process(
        streams: TesseractStreams, images: list[str], tmp_path: Path) -> None:
    first = streams.read(images[:2], 60, tesseract_env())
    started = pid(streams)
    second = streams.read(images[2:], 60, tesseract_env())
    assert words(first + second) == words(fresh(images, tmp_path))
    assert [" ".join(r[11] for r in rows) for rows in first + second] == WORDS
    assert pid(streams) == started and len(started) == 1


def test_a_timeout_ends_the_process_and_the_next_read_starts_another(
        streams: TesseractStreams, images: list[str], noise: Path, tmp_path: Path) -> None:
    streams.read(images[:1], 60, tesseract_env())
    before = pid(streams)
    with pytest.raises(subprocess.TimeoutExpired):
        streams.read([str(noise)], 0.5, tesseract_env())
    assert pid(streams) == set()
    assert words(streams.read(images, 60, tesseract_env())) == words(fresh(images, tmp_path))
    assert pid(streams) and pid(streams) != before


def test_a_read_given_no_time_is_a_timeout_at_once_that_keeps_the_process(
        streams: TesseractStreams, images: list[str], tmp_path: Path) -> None:
    """A page whose earlier readings took all its time: nothing is sent, so the process
    is not stopped mid-read and lost."""
    streams.read(images[:1], 60, tesseract_env())
    before = pid(streams)
    for none in (0.0, -1.0):
        with pytest.raises(subprocess.TimeoutExpired):
            streams.read(images, none, tesseract_env())
    assert pid(streams) == before
    assert words(streams.read(images, 60, tesseract_env())) == words(fresh(images, tmp_path))
    assert pid(streams) == before


def test_a_process_that_stops_is_an_error_and_is_replaced(
        streams: TesseractStreams, images: list[str], tmp_path: Path) -> None:
    with pytest.raises(TesseractStopped, match=r"tesseract stopped \(exit 1\)") as info:
        streams.read([str(tmp_path / "missing.pgm")], 60, tesseract_env())
    assert not info.value.killed and "missing.pgm cannot be read" in info.value.stderr
    assert words(streams.read(images[:1], 60, tesseract_env())) == \
        words(fresh(images[:1], tmp_path))


def test_the_process_outlives_the_cpu_budget_of_the_parse_that_started_it(
        streams: TesseractStreams, images: list[str]) -> None:
    """A parse worker arms a CPU limit per parse; the process it starts reads for later
    parses too, so it must not inherit that limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    used = resource.getrusage(resource.RUSAGE_SELF)
    resource.setrlimit(resource.RLIMIT_CPU, (int(used.ru_utime + used.ru_stime) + 600, hard))
    try:
        streams.read(images[:1], 60, tesseract_env())
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    [child] = pid(streams)
    assert resource.prlimit(child, resource.RLIMIT_CPU) == (hard, hard)


def test_a_forked_child_starts_its_own_process(streams: TesseractStreams,
                                               images: list[str]) -> None:
    expected = words(streams.read(images, 60, tesseract_env()))
    parent = pid(streams)
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        ok = words(streams.read(images, 60, tesseract_env())) == expected \
            and pid(streams).isdisjoint(parent)
        streams.close()
        os._exit(0 if ok else 1)
    assert os.waitpid(child, 0)[1] == 0
    assert pid(streams) == parent
    assert words(streams.read(images, 60, tesseract_env())) == expected


def test_close_ends_the_processes(streams: TesseractStreams, images: list[str]) -> None:
    streams.read(images[:1], 60, tesseract_env())
    procs = [s._proc for s in streams._all]
    streams.close()
    assert pid(streams) == set() and all(p is not None and p.returncode == 0 for p in procs)


CHILD = """
import sys, time
from parsers.ocr.tesseract import tesseract_env
from parsers.ocr.reread import CONFIG
from parsers.ocr.tesseract_stream import TesseractStreams
streams = TesseractStreams(CONFIG)
streams.read([sys.argv[1]], 60, tesseract_env())
print(streams._all[0]._proc.pid, flush=True)
streams.read([sys.argv[2]], 600, tesseract_env())
"""




def test_a_killed_process_leaves_no_tesseract_behind(images: list[str], noise: Path
                                                     ) -> None:
    """A parse process killed for its wall time takes its tesseract with it, even while
    tesseract is busy on an image and not waiting for input."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, images[0], str(noise)],
                             stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert child.stdout is not None
    tesseract = int(child.stdout.readline())
    time.sleep(0.5)  # tesseract is reading the noise
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert ended_within(tesseract, 1.5)


def test_a_process_another_thread_started_outlives_that_thread(
        streams: TesseractStreams, images: list[str]) -> None:
    """The parent-death signal would fire when the starting thread ends: a thread other than
    the main one must not arm it, or the next reader's process would die under it."""
    reader = threading.Thread(target=streams.read, args=(images[:1], 60, tesseract_env()))
    reader.start()
    reader.join()
    [started] = pid(streams)
    time.sleep(0.2)
    assert alive(started)
    assert [" ".join(r[11] for r in rows) for rows in
            streams.read(images[:1], 60, tesseract_env())] == WORDS[:1]
    assert pid(streams) == {started}


def test_a_killed_process_is_an_error_that_says_so(streams: TesseractStreams,
                                                   images: list[str], noise: Path) -> None:
    """Killed from outside (the OOM killer) while it reads: the signal is named."""
    streams.read(images[:1], 60, tesseract_env())
    [started] = pid(streams)
    killer = threading.Timer(0.3, os.kill, (started, signal.SIGKILL))
    killer.start()
    with pytest.raises(TesseractStopped, match="killed by SIGKILL") as info:
        streams.read([str(noise)], 60, tesseract_env())
    killer.join()
    assert info.value.killed and info.value.returncode == -signal.SIGKILL


def test_the_error_keeps_only_the_end_of_what_tesseract_wrote(
        streams: TesseractStreams, images: list[str], tmp_path: Path) -> None:
    """Standard error goes to a file, not a pipe tesseract could fill; the error carries a
    bounded tail of it, its last line whole."""
    missing = str(tmp_path / f"{'x' * 3000}.pgm")
    with pytest.raises(TesseractStopped) as info:
        streams.read([*images[:1], missing], 60, tesseract_env())
    assert 0 < len(info.value.stderr) <= 2000 and info.value.stderr.endswith("processing.")
