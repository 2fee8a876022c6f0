"""The web page of `precis serve` in a real headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium), as a user opening a trained model's page sees it.

- A hand-written card: the text box starts with its widget example, the card is rendered;
  typing a dialogue and pressing the button shows a summary equal to transformers' generate()
  with the checkpoint's settings, and its latency.
- The demo's model (Debian package descriptions -> synopses, a loss logged every 25 steps, no
  evaluation), its card written by `precis card`: no HTML comment shows, the results table has
  at most 20 rows, the text box holds the first description of the run's test file, the title
  is the card's model name, the loss curve shows with its text alternative, and the page does
  not scroll sideways at a phone's width (400 px) or a desktop's.
- A run with evaluations whose card has no widget example: the page's results table has the
  rows of Trainer.create_model_card's card for the same trainer_state.json log history, the
  text box holds the first record of the run's validation file, no sideways scroll at 400 px.

Screenshots of whole pages at both widths are saved under <build dir>/test-artifacts/.
"""
import contextlib
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
import torch

from bart_models import CNN, save_model
from card_support import hf_model_card, logged_losses, regular_log_history, results_table, table_records
from conftest import BUILD_DIR, run_precis, train_tiny_bpe
from serve_support import Server

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PHONE_WIDTH, DESKTOP_WIDTH = 400, 1280
ARTIFACTS = BUILD_DIR / "test-artifacts"
WIDGET = "Anna: Are we still on for lunch?\nBen: Yes, 12:30 at the usual place."
DIALOGUE = "Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)"
# A JSON string is a YAML double-quoted scalar.
CARD = """---
language:
- en
pipeline_tag: summarization
widget:
- text: WIDGET_YAML
---

# tiny-dialogue-summarizer

A tiny random BART for testing `precis serve`.

| Split | ROUGE-1 |
|:------|--------:|
| validation | 0.0 |
""".replace("WIDGET_YAML", json.dumps(WIDGET))

# Records as `precis data debian` writes them (the demo's test file), in their words.
DEBIAN_RECORDS = [
    {"package": "tinyfetch", "synopsis": "small command-line downloader",
     "description": "tinyfetch retrieves files over HTTP and FTP from the command line. It resumes "
                    "interrupted transfers and can mirror a directory tree."},
    {"package": "quietd", "synopsis": "daemon that silences system beeps",
     "description": "quietd watches the console and turns the PC speaker off while a user session is "
                    "active."},
]
DIALOGUES = [
    {"dialogue": "Olivia: Who are you voting for in this election?\nOliver: Liberals as always.",
     "summary": "Oliver votes liberal."},
    {"dialogue": DIALOGUE, "summary": "Amanda will bring Jerry cookies."},
]


def write_jsonl(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def write_trainer_state(model_dir, log_history):
    """trainer_state.json as precis train writes it (indent 2, sorted keys)."""
    state = {"global_step": logged_losses(log_history)[-1]["step"], "log_history": log_history}
    (model_dir / "trainer_state.json").write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A tiny random BART with its tokenizer; (directory, HF model, tokenizer)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip(f"no {CHROMIUM} / {CHROMEDRIVER}: install Debian's chromium and chromium-driver (scripts/setup.sh)")
    pytest.importorskip("selenium", reason="selenium not installed in .venv (requirements-test.txt)")
    tok_dir = tmp_path_factory.mktemp("browser_tokenizer")
    train_tiny_bpe(tok_dir)
    out = tmp_path_factory.mktemp("browser") / "checkpoint"
    hf, tok = save_model(tok_dir, out, "narrow-gelu", 0, **CNN)
    return out, hf, tok


@pytest.fixture(scope="module")
def model(checkpoint, tmp_path_factory):
    """The checkpoint with the hand-written CARD."""
    out = tmp_path_factory.mktemp("hand-written") / "tiny-dialogue-summarizer"
    shutil.copytree(checkpoint[0], out)
    (out / "README.md").write_text(CARD)
    return out, checkpoint[1], checkpoint[2]


@contextlib.contextmanager
def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1100,1000", "--no-first-run", "--disable-extensions", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()


def set_viewport(driver, width, height=900):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def sideways_overflow(driver):
    """None when the page does not scroll sideways; else the widths and the elements reaching
    furthest right, to name the culprit."""
    return driver.execute_script("""
        const root = document.documentElement;
        if (root.scrollWidth <= root.clientWidth) return null;
        const wide = [...document.body.querySelectorAll("*")]
            .map(e => [e.getBoundingClientRect().right, e.tagName + (e.id ? "#" + e.id : "")
                                                          + (e.className ? "." + e.className : "")])
            .sort((a, b) => b[0] - a[0]).slice(0, 5);
        return {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, widest: wide};""")


def whole_page_screenshot(driver, width, name, capsys):
    """The whole page at `width` CSS pixels, saved as an artifact."""
    set_viewport(driver, width)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    set_viewport(driver, width, height)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    set_viewport(driver, width)
    with capsys.disabled():  # shown in ctest's log even when the test passes
        print(f"\nscreenshot: {path}")


def page_results_table(driver):
    """The card's "Training results" table as (header, rows) of cell texts."""
    from selenium.webdriver.common.by import By

    table = driver.find_element(By.XPATH, "//section[@class='card']/h3[normalize-space()='Training results']"
                                          "/following-sibling::table[1]")
    header = [th.get_property("textContent").strip() for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
    rows = [[td.get_property("textContent").strip() for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    return header, rows


def assert_no_comment_shown(driver):
    from selenium.webdriver.common.by import By

    text = driver.find_element(By.TAG_NAME, "body").get_property("innerText")
    assert "<!--" not in text and "-->" not in text and "written by `precis card`" not in text


def open_model_page(driver, server, title, example):
    """The served page at a desktop's width, checked for what every model's page shows: its
    title, the example in the text box, and none of the card's HTML comments."""
    from selenium.webdriver.common.by import By

    set_viewport(driver, DESKTOP_WIDTH)
    driver.get(f"http://127.0.0.1:{server.port}/")
    assert driver.title == title
    assert_no_comment_shown(driver)
    assert driver.find_element(By.ID, "text").get_property("value") == example


def test_type_press_and_see_a_summary(model, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    model_dir, hf, tok = model
    enc = tok([DIALOGUE], return_tensors="pt")
    with torch.no_grad():
        expected = tok.decode(hf.generate(**enc)[0], skip_special_tokens=True)

    screenshot = ARTIFACTS / "serve_page.png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with Server(model_dir) as server, chromium() as driver:
        driver.get(f"http://127.0.0.1:{server.port}/")
        text = driver.find_element(By.ID, "text")
        assert text.get_property("value") == WIDGET
        assert driver.find_element(By.CSS_SELECTOR, ".card h1").text == "tiny-dialogue-summarizer"
        assert driver.find_element(By.CSS_SELECTOR, ".card table td").text == "validation"
        assert driver.find_element(By.ID, "num_beams").get_property("value") == str(CNN["num_beams"])

        text.clear()
        text.send_keys(DIALOGUE)
        driver.find_element(By.ID, "compute").click()
        WebDriverWait(driver, 60).until(lambda d: d.find_element(By.ID, "latency").text
                                        or d.find_element(By.ID, "error").text)
        assert driver.find_element(By.ID, "error").text == ""
        summary = driver.find_element(By.ID, "summary").get_property("textContent")
        assert "ms" in driver.find_element(By.ID, "latency").text
        driver.save_screenshot(str(screenshot))
        with capsys.disabled():
            print(f"\nscreenshot: {screenshot}")
        assert server.stop() == 0
    assert summary == expected


def test_the_demo_models_page(checkpoint, tmp_path, capsys):
    from selenium.webdriver.common.by import By

    # The demo's output: out/demo/{data,model}, the model trained from scratch for 5000 steps,
    # a loss logged every 25; training_args.json names the test file and its columns.
    model_dir = tmp_path / "demo" / "model"
    shutil.copytree(checkpoint[0], model_dir)
    test_file = tmp_path / "demo" / "data" / "test.jsonl"
    write_jsonl(test_file, DEBIAN_RECORDS)
    (model_dir / "training_args.json").write_text(json.dumps({
        "config_name": "bart-tiny", "train_file": str(tmp_path / "demo" / "data" / "train.jsonl"),
        "test_file": str(test_file), "text_column": "description", "summary_column": "synopsis",
        "hub_model_id": "precis/bart-tiny-debian-synopses", "output_dir": str(model_dir), "logging_steps": 25,
        "learning_rate": 0.001, "warmup_steps": 1000, "num_train_epochs": 1000.0, "max_train_time_s": 900.0,
        "per_device_train_batch_size": 16, "seed": 42}, indent=2))
    log_history = regular_log_history(25, 5000)
    write_trainer_state(model_dir, log_history)
    run_precis("card", "--model", model_dir)
    readme = (model_dir / "README.md").read_text()
    assert readme.count("\n| ") > 20  # the card has hyperparameters and the table to show
    svg = ET.parse(model_dir / "loss_curve.svg").getroot()
    description = svg.find(f".//{{http://www.w3.org/2000/svg}}desc[@id='{svg.get('aria-describedby')}']").text

    with Server(model_dir) as server, chromium() as driver:
        # The model's own data in the box: the first description of its test file.
        open_model_page(driver, server, "bart-tiny-debian-synopses · precis",
                        DEBIAN_RECORDS[0]["description"])
        # At most 20 rows, the last logged loss last.
        header, rows = page_results_table(driver)
        assert header == ["Training Loss", "Epoch", "Step"]
        assert 10 <= len(rows) <= 20
        assert rows[-1][2] == str(logged_losses(log_history)[-1]["step"])
        # The loss curve is shown, its text alternative the curve in words.
        image = driver.find_element(By.CSS_SELECTOR, ".card img")
        assert image.get_attribute("alt") == description
        assert re.match(r"Training loss, 200 logged steps: from [\d.]+ at step 25 to [\d.]+ at step 5000; ",
                        description)
        assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 640
        assert sideways_overflow(driver) is None
        whole_page_screenshot(driver, DESKTOP_WIDTH, "serve_page_demo_desktop.png", capsys)

        set_viewport(driver, PHONE_WIDTH)
        assert sideways_overflow(driver) is None
        assert image.rect["width"] <= PHONE_WIDTH
        whole_page_screenshot(driver, PHONE_WIDTH, "serve_page_demo_phone.png", capsys)
        assert server.stop() == 0


def test_a_page_with_evaluations(checkpoint, tmp_path, capsys):
    # A run evaluating every 250 steps on a validation file; its card (written by an older
    # precis, or by hand) has no widget example.
    model_dir = tmp_path / "bart-dialogues"
    shutil.copytree(checkpoint[0], model_dir)
    validation_file = tmp_path / "data" / "validation.jsonl"
    write_jsonl(validation_file, DIALOGUES)
    (model_dir / "training_args.json").write_text(json.dumps({
        "model_name_or_path": "facebook/bart-base", "validation_file": str(validation_file),
        "logging_steps": 25, "eval_strategy": "steps", "eval_steps": 250, "max_steps": 2000}))
    log_history = regular_log_history(25, 2000, evaluate_every=250)
    write_trainer_state(model_dir, log_history)
    run_precis("card", "--model", model_dir)
    readme = (model_dir / "README.md").read_text()
    readme, widgets = re.subn(r"^widget:\n- text: .*\n", "", readme, flags=re.M)
    assert widgets == 1
    (model_dir / "README.md").write_text(readme)
    _, hf_header, hf_rows = results_table(hf_model_card(tmp_path / "hf", log_history))
    assert len(hf_rows) == 8

    with Server(model_dir) as server, chromium() as driver:
        open_model_page(driver, server, "bart-dialogues · precis", DIALOGUES[0]["dialogue"])
        # HF's rows for the same log history, cell for cell (the columns in the order Trainer
        # logs them; see test_model_card.test_results_table_with_evaluation_has_hfs_rows).
        header, rows = page_results_table(driver)
        assert sorted(header) == sorted(hf_header)
        assert table_records(header, rows) == table_records(hf_header, hf_rows)
        assert sideways_overflow(driver) is None
        whole_page_screenshot(driver, DESKTOP_WIDTH, "serve_page_evaluated_desktop.png", capsys)

        # At a phone's width the 9-column table scrolls inside the card, the page does not.
        set_viewport(driver, PHONE_WIDTH)
        assert sideways_overflow(driver) is None
        whole_page_screenshot(driver, PHONE_WIDTH, "serve_page_evaluated_phone.png", capsys)
        assert server.stop() == 0
