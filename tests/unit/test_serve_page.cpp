// The web page's pieces: the Markdown renderer (escaping, the blocks a model card uses,
// safe links, hidden comments, inlined pictures), the name and example from the front matter
// or the run's data, the card's pictures as data: URIs, and the page itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>

#include "precis/core/base64.h"
#include "precis/serve/card_images.h"
#include "precis/serve/markdown.h"
#include "precis/serve/metrics.h"
#include "precis/serve/page.h"
#include "test_support.h"

namespace {

using precis::serve::markdown_to_html;

TEST(ServeMarkdown, EscapesRawHtmlAndHidesFrontMatter) {
  std::string html =
      markdown_to_html("---\nlicense: mit\n---\n# Title <b>\n\n<script>alert(1)</script> & text\n");
  EXPECT_EQ(html.find("license"), std::string::npos);
  EXPECT_CONTAINS(html, "<h1>Title &lt;b&gt;</h1>");
  EXPECT_CONTAINS(html, "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; text</p>");
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(ServeMarkdown, TablesListsCodeAndEmphasis) {
  std::string html = markdown_to_html(
      "| Metric | Value |\n|:-------|------:|\n| rouge1 | 0.25 |\n\n- one\n- **two**\n\n1. "
      "first\n2. `second`\n\n"
      "```bash\nprecis generate --text \"<x>\"\n```\n\nSome *emphasis* and "
      "snake_case_name.\n\n---\n");
  EXPECT_CONTAINS(html, "<thead><tr><th>Metric</th><th>Value</th></tr></thead>");
  EXPECT_CONTAINS(html, "<tr><td>rouge1</td><td>0.25</td></tr>");
  EXPECT_CONTAINS(html, "<ul>\n<li>one</li>\n<li><strong>two</strong></li>\n</ul>");
  EXPECT_CONTAINS(html, "<ol>\n<li>first</li>\n<li><code>second</code></li>\n</ol>");
  EXPECT_CONTAINS(html, "<pre><code>precis generate --text &quot;&lt;x&gt;&quot;\n</code></pre>");
  EXPECT_CONTAINS(html, "<em>emphasis</em> and snake_case_name.");
  EXPECT_CONTAINS(html, "<hr>");
}

TEST(ServeMarkdown, LinksKeepOnlySafeTargetsAndImagesBecomeLinks) {
  EXPECT_CONTAINS(markdown_to_html("[hub](https://huggingface.co/x)"),
                  "<a href=\"https://huggingface.co/x\" rel=\"noopener noreferrer\">hub</a>");
  EXPECT_CONTAINS(markdown_to_html("[local](./loss_curve.svg)"), "href=\"./loss_curve.svg\"");
  std::string js = markdown_to_html("[click](javascript:alert(1)) [data](data:text/html,x)");
  EXPECT_EQ(js.find("href"), std::string::npos);
  EXPECT_CONTAINS(js, "click");
  std::string quote = markdown_to_html("[x](https://a.b/\"onmouseover=\"alert(1))");
  EXPECT_EQ(quote.find("\"onmouseover"), std::string::npos);
  std::string image = markdown_to_html("![Loss curve](loss_curve.svg)");
  EXPECT_EQ(image.find("<img"), std::string::npos);
  EXPECT_CONTAINS(image, "<a href=\"loss_curve.svg\" rel=\"noopener noreferrer\">Loss curve</a>");
}

TEST(ServeMarkdown, HidesHtmlComments) {
  // precis card's first line, a comment block over several lines, comments inside a paragraph.
  std::string html = markdown_to_html(
      "---\nlicense: mit\n---\n\n<!-- This model card was written by `precis card`. -->\n\n# "
      "Title\n<!--\nhidden\nlines -->\nBefore <!-- secret --> after <!-- also\nhidden -->.\n");
  EXPECT_EQ(html.find("&lt;!--"), std::string::npos) << html;
  EXPECT_EQ(html.find("written by"), std::string::npos) << html;
  EXPECT_EQ(html.find("hidden"), std::string::npos) << html;
  EXPECT_EQ(html.find("secret"), std::string::npos) << html;
  EXPECT_CONTAINS(html, "<h1>Title</h1>");
  EXPECT_CONTAINS(html, "<p>Before  after .</p>");
  // Text after a comment block's "-->" shows; an unclosed comment in a paragraph is text; in
  // code, a comment is code.
  EXPECT_CONTAINS(markdown_to_html("<!-- note --> shown\n"), "<p>shown</p>");
  EXPECT_CONTAINS(markdown_to_html("a <!-- b\n"), "<p>a &lt;!-- b</p>");
  EXPECT_CONTAINS(
      markdown_to_html("```\n<!-- code -->\n```\n`<!-- x -->`\n"),
      "<pre><code>&lt;!-- code --&gt;\n</code></pre>\n<p><code>&lt;!-- x --&gt;</code></p>");
  // An unclosed comment block hides the rest, as CommonMark's HTML block does.
  EXPECT_EQ(markdown_to_html("shown\n\n<!-- unclosed\n# gone\n"), "<p>shown</p>\n");
}

TEST(ServeMarkdown, ImagesTheCallerSuppliesShowInline) {
  precis::serve::ImageSource images = [](const std::string& target) -> std::optional<std::string> {
    if (target == "loss_curve.svg") return "data:image/svg+xml;base64,PHN2Zy8+";
    return std::nullopt;
  };
  EXPECT_EQ(markdown_to_html("![Training loss, 2 logged steps](loss_curve.svg)", images),
            "<p><img src=\"data:image/svg+xml;base64,PHN2Zy8+\" alt=\"Training loss, 2 logged "
            "steps\"></p>\n");
  EXPECT_CONTAINS(markdown_to_html("![\"x\" <y>](loss_curve.svg)", images),
                  "alt=\"&quot;x&quot; &lt;y&gt;\"");
  // Others stay links, as without a source.
  EXPECT_EQ(markdown_to_html("![Other](other.png)", images),
            markdown_to_html("![Other](other.png)"));
  EXPECT_EQ(markdown_to_html("![Other](other.png)").find("<img"), std::string::npos);
}

TEST(ServePage, Base64AsRfc4648) {
  // RFC 4648 section 10's test vectors, then bytes past ASCII (a NUL among them).
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
      {std::string("\xff\xfe\x00", 3), "//4A"},
  };
  for (const auto& [bytes, encoded] : vectors) EXPECT_EQ(precis::base64_encode(bytes), encoded);
}

TEST(ServePage, CardImagesFromTheModelDirectoryOnly) {
  namespace fs = std::filesystem;
  using precis::serve::card_image_data_uri;
  precis::testing::TempDir dir("serve-images");
  const std::string svg = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n";
  dir.write("loss_curve.svg", svg);
  EXPECT_EQ(card_image_data_uri(dir.path(), "loss_curve.svg"),
            "data:image/svg+xml;base64," + precis::base64_encode(svg));
  EXPECT_EQ(card_image_data_uri(dir.path(), "./loss_curve.svg"),
            card_image_data_uri(dir.path(), "loss_curve.svg"));
  dir.write("plot.png", std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(card_image_data_uri(dir.path(), "plot.png"), "data:image/png;base64,iVBORw0KGgo=");
  // Not an image of its extension, not in the directory, a link, too large, another kind.
  dir.write("fake.png", "<svg/>");
  EXPECT_EQ(card_image_data_uri(dir.path(), "fake.png"), std::nullopt);
  dir.write("notes.txt", "text");
  EXPECT_EQ(card_image_data_uri(dir.path(), "notes.txt"), std::nullopt);
  EXPECT_EQ(card_image_data_uri(dir.path(), "missing.svg"), std::nullopt);
  fs::create_directories(dir / "sub");
  precis::testing::write_all(dir / "sub" / "a.svg", svg);
  EXPECT_EQ(card_image_data_uri(dir / "sub", "a.svg").has_value(), true);
  for (const char* target : {"sub/a.svg", "../sub/a.svg", "/etc/a.svg", "https://x.y/a.svg",
                             ".hidden.svg", "a.svg?x", ""})
    EXPECT_EQ(card_image_data_uri(dir.path(), target), std::nullopt) << target;
  fs::create_symlink(dir / "sub" / "a.svg", dir / "linked.svg");
  EXPECT_EQ(card_image_data_uri(dir.path(), "linked.svg"), std::nullopt);
  dir.write("huge.svg", "<svg>" + std::string(precis::serve::kMaxCardImageBytes, ' '));
  EXPECT_EQ(card_image_data_uri(dir.path(), "huge.svg"), std::nullopt);
}

TEST(ServePage, WidgetExampleFromFrontMatter) {
  EXPECT_EQ(precis::serve::widget_example("---\nwidget:\n- text: \"A: hi\\nB: bye\"\n---\n# x\n"),
            "A: hi\nB: bye");
  EXPECT_EQ(precis::serve::widget_example("---\nlicense: mit\n---\n"), std::nullopt);
  EXPECT_EQ(precis::serve::widget_example("# no front matter\n"), std::nullopt);
  EXPECT_EQ(precis::serve::widget_example("---\nwidget: [unclosed\n---\n"), std::nullopt);
}

TEST(ServePage, ModelDirectoryCardExampleAndDefaultsInThePage) {
  precis::testing::TempDir dir("serve-page");
  precis::testing::write_all(
      dir / "README.md",
      "---\nwidget:\n- text: \"Tom: </textarea><script>x()</script>\"\n---\n# My model\n");
  precis::serve::PageContent c =
      precis::serve::page_content(dir.path(), {{"num_beams", 4}, {"note", "</script>"}}, false);
  EXPECT_EQ(c.example_text, "Tom: </textarea><script>x()</script>");
  std::string page = precis::serve::render_page(c);
  EXPECT_CONTAINS(page,
                  "<textarea id=\"text\" placeholder=\"Paste a text to summarize\">Tom: "
                  "&lt;/textarea&gt;&lt;script&gt;x()&lt;/script&gt;</textarea>");
  EXPECT_CONTAINS(page, "<h1>My model</h1>");
  EXPECT_CONTAINS(page, "\"num_beams\":4");
  EXPECT_CONTAINS(page, "\\u003c/script>");  // cannot close the defaults' <script> early
  EXPECT_EQ(page.find("{{"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);  // no external asset
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

TEST(ServePage, ModelNameFromTheCard) {
  using precis::serve::card_model_name;
  EXPECT_EQ(card_model_name("---\nmodel-index:\n- name: bart-debian\n  results: []\n---\n"),
            "bart-debian");
  EXPECT_EQ(card_model_name("---\nlicense: mit\n---\n# Heading\n"), std::nullopt);
  EXPECT_EQ(card_model_name("---\nmodel-index: []\n---\n"), std::nullopt);
  EXPECT_EQ(card_model_name("---\nmodel-index: [unclosed\n---\n"), std::nullopt);
  precis::testing::TempDir root("serve-page");
  const std::filesystem::path dir = root / "model";
  std::filesystem::create_directories(dir);
  precis::testing::write_all(dir / "README.md",
                             "---\nmodel-index:\n- name: \"bart <debian>\"\n  results: []\n---\n");
  std::string page =
      precis::serve::render_page(precis::serve::page_content(dir, nlohmann::json::object(), false));
  EXPECT_CONTAINS(page, "<title>bart &lt;debian&gt; · precis</title>");
  EXPECT_CONTAINS(page, "<h1>bart &lt;debian&gt; <small");
  // Without a card name: the directory's.
  precis::testing::write_all(dir / "README.md", "# Heading\n");
  EXPECT_EQ(precis::serve::page_content(dir, nlohmann::json::object(), false).model_name, "model");
}

TEST(ServePage, ExampleFromTheRunsDataWhenTheCardHasNone) {
  precis::testing::TempDir dir("serve-page");
  dir.write("validation.jsonl",
            "{\"description\": \"Validation text.\", \"synopsis\": \"s\"}\n"
            "{\"description\": \"Second.\", \"synopsis\": \"s\"}\n");
  dir.write("test.jsonl", "{\"description\": \"Test text.\", \"synopsis\": \"s\"}\n");
  const nlohmann::json args = {{"validation_file", (dir / "validation.jsonl").string()},
                               {"text_column", "description"},
                               {"summary_column", "synopsis"}};
  dir.write("training_args.json", args.dump());
  dir.write("README.md", "---\nlicense: mit\n---\n# A card without a widget\n");
  auto example = [&] {
    return precis::serve::page_content(dir.path(), nlohmann::json::object(), false).example_text;
  };
  EXPECT_EQ(example(), "Validation text.");
  nlohmann::json with_test = args;
  with_test["test_file"] = (dir / "test.jsonl").string();
  dir.write("training_args.json", with_test.dump());
  EXPECT_EQ(example(), "Test text.");  // the test file first, as precis card takes it
  std::filesystem::remove(dir / "README.md");
  EXPECT_EQ(example(), "Test text.");  // no card at all
  // The card's widget comes first.
  dir.write("README.md", "---\nwidget:\n- text: From the card.\n---\n");
  EXPECT_EQ(example(), "From the card.");
  // A data file gone since training: no example.
  dir.write("README.md", "# x\n");
  std::filesystem::remove(dir / "test.jsonl");
  std::filesystem::remove(dir / "validation.jsonl");
  EXPECT_EQ(example(), "");
}

TEST(ServePage, EmptyBoxWithAPlaceholderWithoutAnExample) {
  precis::testing::TempDir dir("serve-page");
  precis::serve::PageContent c =
      precis::serve::page_content(dir.path(), nlohmann::json::object(), true);
  EXPECT_EQ(c.example_text, "");
  EXPECT_CONTAINS(c.card_html, "no model card");
  EXPECT_CONTAINS(precis::serve::render_page(c),
                  "<textarea id=\"text\" placeholder=\"Paste a text to summarize\"></textarea>");
}

TEST(ServePage, MalformedTrainingArgsAreNamed) {
  precis::testing::TempDir dir("serve-page");
  dir.write("training_args.json", "{\"test_file\": ");
  EXPECT_CONTAINS(precis::testing::error_of([&] {
                    precis::serve::page_content(dir.path(), nlohmann::json::object(), false);
                  }),
                  "training_args.json: not valid JSON");
  dir.write("training_args.json", "{\"test_file\": 3}");
  EXPECT_CONTAINS(precis::testing::error_of([&] {
                    precis::serve::page_content(dir.path(), nlohmann::json::object(), false);
                  }),
                  "training_args.json: \"test_file\" should be a string, found number");
  dir.write("training_args.json", "[]");
  EXPECT_CONTAINS(precis::testing::error_of([&] {
                    precis::serve::page_content(dir.path(), nlohmann::json::object(), false);
                  }),
                  "training_args.json: expected a JSON object, found array");
}

TEST(ServePage, LossCurveShownInlineWithItsTextAlternative) {
  precis::testing::TempDir dir("serve-page");
  dir.write("loss_curve.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
  dir.write("README.md",
            "# m\n\n![Training loss, 2 logged steps: from 3 at step 1 to 2 at step 2; "
            "lowest 2 at step 2.](loss_curve.svg)\n");
  const std::string html =
      precis::serve::page_content(dir.path(), nlohmann::json::object(), false).card_html;
  EXPECT_CONTAINS(html, "<img src=\"data:image/svg+xml;base64,");
  EXPECT_CONTAINS(html,
                  "alt=\"Training loss, 2 logged steps: from 3 at step 1 to 2 at step 2; "
                  "lowest 2 at step 2.\">");
}

TEST(ServeMetrics, PrometheusTextWithCumulativeBuckets) {
  precis::serve::ServerMetrics m;
  m.request("/", 200);
  m.request("/", 200);
  m.request("/", 503);
  m.latency(0.003);
  m.latency(0.2);
  m.batch(3);
  std::string text = m.render(5, 64);
  EXPECT_CONTAINS(text, "precis_requests_total{route=\"/\",code=\"200\"} 2\n");
  EXPECT_CONTAINS(text, "precis_requests_total{route=\"/\",code=\"503\"} 1\n");
  EXPECT_CONTAINS(text, "precis_request_duration_seconds_bucket{le=\"0.005\"} 1\n");
  EXPECT_CONTAINS(text, "precis_request_duration_seconds_bucket{le=\"0.25\"} 2\n");
  EXPECT_CONTAINS(text, "precis_request_duration_seconds_bucket{le=\"+Inf\"} 2\n");
  EXPECT_CONTAINS(text, "precis_request_duration_seconds_count 2\n");
  EXPECT_CONTAINS(text, "precis_batch_size_bucket{le=\"2\"} 0\n");
  EXPECT_CONTAINS(text, "precis_batch_size_bucket{le=\"4\"} 1\n");
  EXPECT_CONTAINS(text, "precis_batch_size_sum 3\n");
  EXPECT_CONTAINS(text, "precis_queue_depth 5\n");
  EXPECT_CONTAINS(text, "# TYPE precis_request_duration_seconds histogram\n");
}

}  // namespace
