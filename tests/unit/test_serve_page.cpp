// The web page's pieces: the Markdown renderer (escaping, the blocks a model card uses,
// safe links), the widget example from the front matter, and the page itself.
#include <gtest/gtest.h>

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
  EXPECT_CONTAINS(
      page,
      "<textarea id=\"text\">Tom: &lt;/textarea&gt;&lt;script&gt;x()&lt;/script&gt;</textarea>");
  EXPECT_CONTAINS(page, "<h1>My model</h1>");
  EXPECT_CONTAINS(page, "\"num_beams\":4");
  EXPECT_CONTAINS(page, "\\u003c/script>");  // cannot close the defaults' <script> early
  EXPECT_EQ(page.find("{{"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);  // no external asset
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

TEST(ServePage, BuiltInDialogueWithoutACard) {
  precis::testing::TempDir dir("serve-page");
  precis::serve::PageContent c =
      precis::serve::page_content(dir.path(), nlohmann::json::object(), true);
  EXPECT_CONTAINS(c.example_text, "Amanda:");
  EXPECT_CONTAINS(c.card_html, "no model card");
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
