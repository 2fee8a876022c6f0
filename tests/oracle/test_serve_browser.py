"""The web page of `precis serve` in a real headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium): the text box starts with the model card's widget
example, the card is rendered; typing a dialogue and pressing the button shows a summary
equal to transformers' generate() with the checkpoint's settings, and its latency.
A screenshot is saved under <build dir>/test-artifacts/ as the test's artifact.
"""
import json
import os

import pytest
import torch

from conftest import BUILD_DIR, train_tiny_bpe
from serve_support import Server
from bart_models import CNN, save_model

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
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


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip(f"no {CHROMIUM} / {CHROMEDRIVER}: install Debian's chromium and chromium-driver (scripts/setup.sh)")
    pytest.importorskip("selenium", reason="selenium not installed in .venv (requirements-test.txt)")
    tok_dir = tmp_path_factory.mktemp("browser_tokenizer")
    train_tiny_bpe(tok_dir)
    out = tmp_path_factory.mktemp("browser") / "tiny-dialogue-summarizer"
    hf, tok = save_model(tok_dir, out, "narrow-gelu", 0, **CNN)
    (out / "README.md").write_text(CARD)
    return out, hf, tok


def test_type_press_and_see_a_summary(model, capsys):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    model_dir, hf, tok = model
    enc = tok([DIALOGUE], return_tensors="pt")
    with torch.no_grad():
        expected = tok.decode(hf.generate(**enc)[0], skip_special_tokens=True)

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1100,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    artifacts = BUILD_DIR / "test-artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    screenshot = artifacts / "serve_page.png"

    with Server(model_dir) as server:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        try:
            driver.set_page_load_timeout(60)
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
            with capsys.disabled():  # shown in ctest's log even when the test passes
                print(f"\nscreenshot: {screenshot}")
        finally:
            driver.quit()
        assert server.stop() == 0
    assert summary == expected
