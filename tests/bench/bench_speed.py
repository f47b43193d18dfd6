"""Benchmark: how fast Folio is on this machine, as a person meets it.

    python tests/bench/bench_speed.py [--questions 3] [--financebench 0] [--runs 5] [--seed 7]
                                      [--workdir DIR] [--skip-window] [--skip-questions] [--out results.json]

1. Window: cold start to interactive (a fresh interpreter, ``QT_QPA_PLATFORM=offscreen``, from launch to the
   first turn of the event loop with the window shown over the sample report's library), median of
   ``--runs``; the process's RSS at that moment (idle, before the model loads) and once more after the
   embedded model has loaded (RSS and peak).
2. Start-up imports: ``python -X importtime -c "import app.gui"``, total and the packages that cost most.
3. Questions, asked through the window's controller (``Controller.ask``: the job, its progress events and
   streamed tokens, as the chat view receives them), with the embedded model kept loaded across questions as
   the window keeps it: ``--questions`` TAT-QA dev questions over PDFs rendered by ``bench_tatqa.py``'s
   machinery, and ``--financebench`` questions about one FinanceBench filing (``bench_financebench.py``'s
   data and scoring). Per question: seconds (wall, from the ask to the answer), prompt tokens, tokens the
   KV cache served, model calls, time to the first progress event the window shows, to the first streamed
   token, and the score. Printed: median and p90.

Figures are printed, never asserted (STYLE.md). The embedded model is slow on 2 shared cores: keep N small or
run it in the background.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

QUESTION_TIMEOUT_S = 15 * 60

WINDOW_PROBE = r"""
import sys, time
from pathlib import Path
from PySide6.QtCore import QEventLoop, QTimer
from app.gui import WINDOW_SIZE, make_application
from app.controller import Controller
from app.settings import load_settings
from ui.main_window import MainWindow

def memory():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status") if line.startswith(("VmRSS", "VmHWM")))
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024

application = make_application()
controller = Controller(Path(sys.argv[1]), load_settings())
window = MainWindow(controller)
window.resize(*WINDOW_SIZE)
window.show()

def interactive():
    rss, peak = memory()
    print("interactive", time.time(), rss, peak, flush=True)
    if sys.argv[2] == "load":
        began = time.time()
        job = controller.check_model()
        loop = QEventLoop()
        job.ended.connect(loop.quit)
        if job.running:
            loop.exec()
        rss, peak = memory()
        print("loaded", time.time() - began, rss, peak, controller.model_status.state, flush=True)
    application.quit()

QTimer.singleShot(0, interactive)
application.exec()
window.close()
controller.close()
"""


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def child_env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO), FOLIO_CONFIG_DIR=str(workdir / "config"))
    return env


def sample_library(workdir: Path) -> Path:
    """A library holding the bundled sample report (ingested once per work dir)."""
    directory = workdir / "sample_library"
    if not (directory / "library.sqlite3").exists():
        from app.wiring import make_ingestor, open_library

        with open_library(directory) as library:
            make_ingestor(library).ingest_paths([REPO / "resources" / "sample_report.pdf"])
    return directory


def window_figures(workdir: Path, runs: int) -> list[str]:
    library = sample_library(workdir)
    starts: list[float] = []
    idle: list[int] = []
    lines = []
    for run in range(runs + 1):
        mode = "load" if run == runs else "idle"  # one more run loads the model, as the window does next
        began = time.time()
        done = subprocess.run([sys.executable, "-c", WINDOW_PROBE, str(library), mode], cwd=REPO,
                              env=child_env(workdir), capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise SystemExit(f"the window probe failed: {done.stderr[-2000:]}")
        fields = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines() if line.strip()}
        at, rss, _peak = fields["interactive"]
        if mode == "idle":
            starts.append(float(at) - began)
            idle.append(int(rss))
        else:
            seconds, rss_loaded, peak_loaded, state = fields["loaded"]
            lines.append(f"model load after start-up: {float(seconds):.1f} s ({state}); RSS then {rss_loaded} MB, "
                         f"peak {peak_loaded} MB")
    cold = (f"window cold start to interactive (median of {runs}): {statistics.median(starts):.2f} s "
            f"(min {min(starts):.2f}, max {max(starts):.2f})")
    return [cold,
            f"idle RSS before the model loads (median): {statistics.median(idle)} MB", *lines]


def import_figures(workdir: Path, runs: int = 3) -> list[str]:
    totals: list[float] = []
    groups: dict[str, float] = defaultdict(float)
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import app.gui"], cwd=REPO,
                              env=child_env(workdir), capture_output=True, text=True, timeout=120, check=True)
        for line in done.stderr.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
            if not match:
                continue
            self_us, cumulative_us, name = int(match[1]), int(match[2]), match[4]
            groups[name.split(".")[0]] += self_us / runs
            if name == "app.gui":
                totals.append(cumulative_us / 1e6)
    top = sorted(groups.items(), key=lambda item: -item[1])[:8]
    return [f"import app.gui (median of {runs}): {statistics.median(totals):.2f} s; by package: "
            + ", ".join(f"{name} {us / 1e6:.2f} s" for name, us in top)]


# -- questions -------------------------------------------------------------------------------------------


@dataclass
class Asked:
    bench: str
    question: str
    gold: str
    prediction: str
    correct: float
    seconds: float
    prompt_tokens: int
    reused_tokens: int
    calls: int
    first_progress: float
    first_progress_text: str
    first_token: float
    error: str = ""


def tatqa_questions(workdir: Path, count: int, seed: int) -> tuple[Path, list[tuple[str, Any]]]:
    """A library of rendered TAT-QA contexts and (question, scorer) pairs, with bench_tatqa's sampling."""
    import bench_tatqa

    data = json.loads(bench_tatqa.DATASET.read_text(encoding="utf-8"))
    contexts, asked = bench_tatqa.sample(data, count, seed)
    directory = workdir / f"tatqa_seed{seed}_n{count}"
    pdfs = directory / "pdfs"
    pdfs.mkdir(parents=True, exist_ok=True)
    bench_tatqa.render_pdfs(contexts, pdfs)
    ingest(directory, sorted(pdfs.glob("*.pdf")))

    def scorer(question: dict[str, Any]) -> Any:
        def score(answer: Any) -> float:
            return bench_tatqa.tatqa_score(question, bench_tatqa.split_prediction(answer.value or answer.text))[0]
        return score

    return directory, [(q["question"], (str(q["answer"]), scorer(q))) for _context, q in asked]


def financebench_questions(workdir: Path, count: int) -> tuple[Path, list[tuple[str, Any]]]:
    """The filing with the most numeric dev questions, ingested, and its first ``count`` of them."""
    import bench_financebench as fb

    rows = [json.loads(line) for line in (fb.DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    numeric = [q for q in rows if fb.is_numeric_gold(q["answer"])]
    per_doc: dict[str, int] = defaultdict(int)
    for q in numeric:
        per_doc[q["doc_name"]] += 1
    doc = max(sorted(per_doc), key=lambda name: per_doc[name])
    directory = workdir / f"financebench_{doc}"
    ingest(directory, [fb.DATA / f"{doc}.pdf"])

    def scorer(question: dict[str, Any]) -> Any:
        def score(answer: Any) -> float:
            return float(fb.score(answer.text, question["answer"], question["question"])[0])
        return score

    chosen = [q for q in numeric if q["doc_name"] == doc][:count]
    return directory, [(q["question"], (q["answer"], scorer(q))) for q in chosen]


def ingest(directory: Path, pdfs: Sequence[Path]) -> None:
    from app.wiring import make_ingestor, open_library

    with open_library(directory) as library:
        if library.counts()["documents"]:
            return
        began = time.perf_counter()
        results = make_ingestor(library).ingest_paths(list(pdfs))
        print(f"ingested {len(pdfs)} PDF(s) into {directory} in {time.perf_counter() - began:.0f} s "
              f"({sum(r.status == 'failed' for r in results)} failed)", flush=True)


def ask_all(bench: str, library_dir: Path, questions: list[tuple[str, Any]], workdir: Path) -> list[Asked]:
    """Ask through the window's controller, one question after another, the model loaded once."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("FOLIO_CONFIG_DIR", str(workdir / "config"))
    from PySide6.QtCore import QEventLoop, QTimer

    from app.controller import Controller
    from app.gui import make_application
    from app.settings import Settings

    make_application()
    controller = Controller(library_dir, Settings(backend="embedded"))

    def wait(job: Any) -> None:
        loop = QEventLoop()
        job.ended.connect(loop.quit)
        QTimer.singleShot(QUESTION_TIMEOUT_S * 1000, loop.quit)
        if job.running:
            loop.exec()

    began = time.perf_counter()
    check = controller.check_model()
    wait(check)
    print(f"{bench}: model {controller.model_status.text} in {time.perf_counter() - began:.1f} s", flush=True)
    results: list[Asked] = []
    try:
        for number, (question, (gold, score)) in enumerate(questions, 1):
            firsts: dict[str, float] = {}
            first_text: list[str] = []
            started = time.perf_counter()
            job = controller.ask(question)

            def on_progress(event: Any, job_started: float = started, firsts: dict[str, float] = firsts,
                            first_text: list[str] = first_text) -> None:
                if "progress" not in firsts and event.message and event.stage not in ("step", "done"):
                    firsts["progress"] = time.perf_counter() - job_started
                    first_text.append(event.message)

            def on_report(kind: str, _value: Any, job_started: float = started,
                          firsts: dict[str, float] = firsts) -> None:
                if kind == "token" and "token" not in firsts:
                    firsts["token"] = time.perf_counter() - job_started

            job.progressed.connect(on_progress)
            job.reported.connect(on_report)
            wait(job)
            wall = time.perf_counter() - started
            if job.outcome == "finished":
                answer = job.result.answer
                usage = answer.usage
                asked = Asked(bench, question, gold, answer.value or answer.text, score(answer), wall,
                              usage.prompt_tokens, usage.reused_tokens, usage.calls, firsts.get("progress", -1.0),
                              first_text[0] if first_text else "", firsts.get("token", -1.0))
            else:
                asked = Asked(bench, question, gold, "", 0.0, wall, 0, 0, 0, firsts.get("progress", -1.0),
                              first_text[0] if first_text else "", -1.0, job.error_message or str(job.outcome))
            results.append(asked)
            print(f"[{number}/{len(questions)}] {bench} {asked.seconds:5.1f} s tok={asked.prompt_tokens} "
                  f"reused={asked.reused_tokens} calls={asked.calls} first progress {asked.first_progress:.2f} s "
                  f"({asked.first_progress_text!r}) first token {asked.first_token:.1f} s score={asked.correct:.0f} | "
                  f"{question[:60]!r} -> {asked.prediction[:50]!r} (gold {gold[:30]!r})"
                  f"{' ERROR ' + asked.error if asked.error else ''}", flush=True)
    finally:
        controller.close(timeout_ms=QUESTION_TIMEOUT_S * 1000)
    return results


def question_summary(results: list[Asked]) -> list[str]:
    lines = []
    for bench in sorted({r.bench for r in results}):
        group = [r for r in results if r.bench == bench]

        def row(name: str, values: list[float], unit: str = "", digits: int = 1) -> str:
            return (f"  {name:34} median {statistics.median(values):8.{digits}f}{unit}   "
                    f"p90 {percentile(values, 0.9):8.{digits}f}{unit}")

        lines.append(f"{bench}: {len(group)} questions, {sum(r.correct for r in group):.0f} right, "
                     f"{sum(bool(r.error) for r in group)} failed")
        lines.append(row("seconds per question", [r.seconds for r in group], " s"))
        lines.append(row("prompt tokens", [float(r.prompt_tokens) for r in group], "", 0))
        lines.append(row("of which read from the KV cache", [float(r.reused_tokens) for r in group], "", 0))
        lines.append(row("model calls", [float(r.calls) for r in group], "", 1))
        lines.append(row("time to first visible progress", [r.first_progress for r in group], " s", 2))
        tokens = [r.first_token for r in group if r.first_token >= 0]
        if tokens:
            lines.append(row("time to first streamed word", tokens, " s"))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=3, help="TAT-QA dev questions to ask (default 3)")
    parser.add_argument("--financebench", type=int, default=0, help="FinanceBench questions to ask (default 0)")
    parser.add_argument("--runs", type=int, default=5, help="window cold starts to time (default 5)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None, help="keep libraries here (reused if present)")
    parser.add_argument("--skip-window", action="store_true", help="no window or import figures")
    parser.add_argument("--skip-questions", action="store_true", help="no questions")
    parser.add_argument("--out", type=Path, default=None, help="write per-question results as JSON")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_speed_"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"work dir {workdir}; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}", flush=True)

    report: list[str] = []
    if not args.skip_window:
        report += window_figures(workdir, args.runs)
        report += import_figures(workdir)
        print("\n".join(report), flush=True)
    results: list[Asked] = []
    if not args.skip_questions:
        if args.questions > 0:
            library, questions = tatqa_questions(workdir, args.questions, args.seed)
            results += ask_all("tatqa", library, questions, workdir)
        if args.financebench > 0:
            library, questions = financebench_questions(workdir, args.financebench)
            results += ask_all("financebench", library, questions, workdir)
        if args.out:
            args.out.write_text(json.dumps([asdict(r) for r in results], indent=1))
    print()
    print("\n".join(report + question_summary(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
