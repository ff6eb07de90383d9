/* tests/fuzz/fuzz_markdown.c: a fuzz target for the lesson text renderer
 * (md_render in app/tui/tui_markdown.h), on the driver in
 * tests/fuzz/driver.c.
 *
 * A course pack's README.md is untrusted input: any bytes at any width must
 * lay out without a crash, a hang or an assert. Each input is laid out at
 * widths 1, 7, 40 and 100. Seeds: tests/fuzz/corpus-markdown/. */
#include "app/tui/tui_markdown.h"
#include "tests/fuzz/driver.h"

static const char *const TOKENS[] = {
    "```", "```cuda\n", "~~~", "    ", "\t", "**", "__", "*", "_", "`", "``", "[", "]", "](", ")", "](http://x)",
    "![img](x.png)", "<http://x>", "<b>", "</b>", "&amp;", "&#0;", "&#x110000;", "# ", "###### ", "####### ", "---\n",
    "***\n", "===\n", "> ", ">>>> ", "- ", "* ", "+ ", "1. ", "99999999999. ", "1) ", "| a | b |\n|---|---|\n", "|", "\\|", "| :-: | --: |\n", "|表|",
    "\\", "\n\n", "\r\n", "\r", "\0", "\xff", "\xe2\x80", "\xe4\xb8\xad\xe6\x96\x87", "\xcc\x81", "\xe2\x80\x8b",
    "\xf0\x9f\x98\x80", "\xef\xbb\xbf", "\x1b[31m", "\x07", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};

static int check_markdown(const char *data, size_t len) {
    static const int widths[] = {1, 7, 40, 100};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        TextDoc *doc = md_render(data, len, widths[i], i % 2 == 0);
        text_doc_free(&doc);
    }
    return 0;
}

int main(int argc, char **argv) {
    static const FuzzTarget t = {"fuzz_markdown", "tests/fuzz/corpus-markdown", "fuzz-crash.md", TOKENS,
                                 sizeof TOKENS / sizeof TOKENS[0], check_markdown};
    return fuzz_main(&t, argc, argv);
}
