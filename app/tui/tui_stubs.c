/* app/tui/tui_stubs.c: screens not written yet (temporary). */
#include "app/tui/tui.h"

Panel *tui_progress_new(Tui *t) { return tui_textview_new(t, "Progress", text_doc_new()); }
Panel *tui_device_new(Tui *t) { return tui_textview_new(t, "Device", text_doc_new()); }
