#include "precis/serve/page.h"

#include <map>

#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/json_input.h"
#include "precis/hub/training_data_example.h"
#include "precis/serve/card_images.h"
#include "precis/serve/markdown.h"

namespace precis::serve {

namespace {

// {{NAME}} placeholders are replaced by render_page; everything else is served as is.
constexpr const char* kTemplate = R"HTML(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{MODEL}} · precis</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
  main { max-width: 960px; margin: 0 auto; padding: 1.5rem; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  section { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 1rem 1.25rem; margin-bottom: 1rem; }
  textarea { width: 100%; box-sizing: border-box; min-height: 9rem; font: inherit; padding: .5rem; }
  .settings { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: .5rem 1rem; margin: .75rem 0; }
  .settings label { display: flex; flex-direction: column; font-size: .85rem; color: #57606a; }
  .settings input[type=number] { font: inherit; padding: .2rem .3rem; }
  button { font: inherit; padding: .45rem 1.2rem; border-radius: 6px; border: 1px solid #1f883d; background: #1f883d; color: #fff; cursor: pointer; }
  button:disabled { opacity: .6; cursor: wait; }
  #summary { white-space: pre-wrap; font-size: 1.05rem; margin: .75rem 0 .25rem; min-height: 1.5rem; }
  #latency { color: #57606a; font-size: .85rem; }
  #error { color: #cf222e; white-space: pre-wrap; }
  h1, .card { overflow-wrap: anywhere; }
  /* Wide tables and code scroll inside the card, so the page never scrolls sideways. */
  .card table { border-collapse: collapse; margin: .5rem 0; display: block; max-width: 100%; overflow-x: auto; }
  .card th, .card td { border: 1px solid #d0d7de; padding: .25rem .6rem; text-align: left; overflow-wrap: normal; }
  .card pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; }
  .card img { display: block; max-width: 100%; height: auto; }
  @media (max-width: 600px) { main { padding: .75rem; } section { padding: .75rem; } }
  .hidden, .settings label.hidden { display: none; }
</style>
</head>
<body>
<main>
<h1>{{MODEL}} <small style="color:#57606a;font-weight:normal">summarization · precis serve</small></h1>
<section>
  <label for="text">Text to summarize</label>
  <textarea id="text" placeholder="Paste a text to summarize">{{EXAMPLE}}</textarea>
  <div class="settings">
    <label>num_beams <input type="number" id="num_beams" min="1" step="1"></label>
    <label>max_length <input type="number" id="max_length" min="1" step="1"></label>
    <label>min_length <input type="number" id="min_length" min="0" step="1"></label>
    <label>length_penalty <input type="number" id="length_penalty" step="0.1"></label>
    <label>no_repeat_ngram_size <input type="number" id="no_repeat_ngram_size" min="0" step="1"></label>
    <label>repetition_penalty <input type="number" id="repetition_penalty" min="0" step="0.1"></label>
    <label>temperature <input type="number" id="temperature" min="0" step="0.1"></label>
    <label>top_k <input type="number" id="top_k" min="0" step="1"></label>
    <label>top_p <input type="number" id="top_p" min="0" max="1" step="0.05"></label>
    <label><span><input type="checkbox" id="do_sample"> do_sample</span></label>
    <label class="{{TOKEN_CLASS}}">Bearer token <input type="password" id="token" autocomplete="off"></label>
  </div>
  <button id="compute">Summarize</button>
  <div id="summary" aria-live="polite"></div>
  <div id="latency"></div>
  <div id="error"></div>
</section>
<section class="card">
{{CARD}}
</section>
</main>
<script type="application/json" id="defaults">{{DEFAULTS}}</script>
<script>
"use strict";
const defaults = JSON.parse(document.getElementById("defaults").textContent);
const numeric = ["num_beams", "max_length", "min_length", "length_penalty", "no_repeat_ngram_size",
                 "repetition_penalty", "temperature", "top_k", "top_p"];
const integers = new Set(["num_beams", "max_length", "min_length", "no_repeat_ngram_size", "top_k"]);
for (const name of numeric) if (defaults[name] !== undefined) document.getElementById(name).value = defaults[name];
document.getElementById("do_sample").checked = !!defaults.do_sample;

// Only settings changed from the checkpoint's defaults are sent.
function parameters() {
  const p = {};
  for (const name of numeric) {
    const raw = document.getElementById(name).value.trim();
    if (raw === "") continue;
    const value = integers.has(name) ? parseInt(raw, 10) : parseFloat(raw);
    if (value !== defaults[name]) p[name] = value;
  }
  const sample = document.getElementById("do_sample").checked;
  if (sample !== !!defaults.do_sample) p.do_sample = sample;
  return p;
}

async function summarize() {
  const button = document.getElementById("compute");
  const summary = document.getElementById("summary");
  const error = document.getElementById("error");
  const latency = document.getElementById("latency");
  button.disabled = true;
  error.textContent = "";
  const headers = {"Content-Type": "application/json"};
  const token = document.getElementById("token").value;
  if (token) headers["Authorization"] = "Bearer " + token;
  const started = performance.now();
  try {
    const response = await fetch("/", {method: "POST", headers,
        body: JSON.stringify({inputs: document.getElementById("text").value, parameters: parameters()})});
    const body = await response.json();
    const ms = performance.now() - started;
    if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
    summary.textContent = body[0].summary_text;
    latency.textContent = "Computed in " + ms.toFixed(0) + " ms";
  } catch (e) {
    summary.textContent = "";
    latency.textContent = "";
    error.textContent = String(e.message || e);
  } finally {
    button.disabled = false;
  }
}
document.getElementById("compute").addEventListener("click", summarize);
</script>
</body>
</html>
)HTML";

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

// One pass over the template: inserted text is never scanned for placeholders.
std::string fill(std::string_view page, const std::map<std::string, std::string>& values) {
  std::string out;
  for (size_t pos = 0; pos < page.size();) {
    size_t open = page.find("{{", pos);
    size_t close = open == std::string_view::npos ? open : page.find("}}", open);
    if (close == std::string_view::npos) {
      out += page.substr(pos);
      break;
    }
    out += page.substr(pos, open - pos);
    out += values.at(std::string(page.substr(open + 2, close - open - 2)));
    pos = close + 2;
  }
  return out;
}

}  // namespace

PageContent page_content(const std::filesystem::path& model_dir, nlohmann::json defaults,
                         bool token_required) {
  PageContent c;
  c.model_name = model_dir.filename().string();
  if (c.model_name.empty()) c.model_name = model_dir.parent_path().filename().string();
  c.defaults = std::move(defaults);
  c.token_required = token_required;
  if (std::optional<std::string> card = read_file_bytes(model_dir / "README.md")) {
    const std::string& readme = *card;
    if (auto name = card_model_name(readme)) c.model_name = *name;
    if (auto example = widget_example(readme)) c.example_text = *example;
    c.card_html = markdown_to_html(readme, [&model_dir](const std::string& target) {
      return card_image_data_uri(model_dir, target);
    });
  } else {
    c.card_html =
        "<p>This model directory has no model card (README.md); <code>precis card</code> writes "
        "one.</p>";
  }
  // A card written before precis took the example from the data, or by hand, has none: the
  // run's own data still gives the box an example of the model's kind.
  const std::filesystem::path args_file = model_dir / "training_args.json";
  if (c.example_text.empty()) {
    if (std::optional<std::string> text = read_file_bytes(args_file)) {
      const nlohmann::json args = parse_json(*text, args_file.string());
      check(args.is_object(), args_file.string() + ": expected a JSON object, found " +
                                  std::string(args.type_name()));
      c.example_text = hub::training_data_example(args, args_file).value_or("");
    }
  }
  return c;
}

std::string render_page(const PageContent& content) {
  // In a <script> element, "</" would end it early: JSON allows the escaped form instead.
  std::string defaults =
      content.defaults.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  replace_all(defaults, "<", "\\u003c");
  return fill(kTemplate, {{"CARD", content.card_html},
                          {"DEFAULTS", defaults},
                          {"EXAMPLE", html_escape(content.example_text)},
                          {"TOKEN_CLASS", content.token_required ? "" : "hidden"},
                          {"MODEL", html_escape(content.model_name)}});
}

}  // namespace precis::serve
