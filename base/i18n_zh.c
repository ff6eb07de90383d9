/* base/i18n_zh.c: the Chinese catalogue: every learner-facing English text
 * marked _(), N_() or P_() (for P_ the plural form) and its translation.
 *
 * Terms follow lessons/GLOSSARY.zh-CN.md (its "Workbench words" section for
 * verdicts and statuses). A translation keeps the English's printf
 * conversions in the same order, and its leading or trailing newline;
 * tests/base/test_i18n.c checks both and that no marked string is missing.
 * Grouped by where the text is shown; order does not matter to lookups. */
#include "base/i18n.h"

const I18nEntry I18N_ZH[] = {
    /* verdicts and a run's result (base/result.c) */
    {"pass", "通过"},
    {"fail", "未通过"},
    {"compile error", "编译错误"},
    {"runtime error", "运行时错误"},
    {"timed out", "超时"},
    {"crashed", "崩溃"},
    {"cancelled", "已取消"},
    {"the exercise itself is broken", "练习本身有错误"},
    {"PASS", "通过"},
    {"PASS (fast)", "通过（达到速度目标）"},
    {"FAIL", "未通过"},
    {": %s", "：%s"},
    {"index", "下标"},
    {"got", "实际值"},
    {"want", "期望值"},
    {"program output", "程序输出"},
    {"device printf", "设备端 printf"},

    /* exercise status words (list, progress, the map) */
    {"passed fast", "快速通过"},
    {"passed", "已通过"},
    {"failing", "未通过"},
    {"not started", "未开始"},

    /* cudojo run / watch / hint */
    {"running %s…\n", "正在运行 %s…\n"},
    {"\nNext: cudojo run %s\n", "\n下一个：cudojo run %s\n"},
    {"\nStuck? `cudojo hint %s`\n", "\n卡住了？试试 `cudojo hint %s`\n"},
    {"\nTimeline%s written to %s (open it at https://ui.perfetto.dev or chrome://tracing)\n",
     "\n时间线%s已写入 %s（用 https://ui.perfetto.dev 或 chrome://tracing 打开）\n"},
    {" (modeled)", "（模型估算）"},
    {"Every exercise passed. Well done! (`cudojo watch EXERCISE` to redo one)",
     "所有练习都已通过，做得好！（用 `cudojo watch 练习名` 重做其中一个）"},
    {"That was the last exercise. Well done!", "这是最后一个练习。做得好！"},
    {"\nPassed! Next up: %s\n", "\n通过！下一个：%s\n"},
    {"\nWatching %s — save to re-run, Ctrl-C to quit.\n", "\n正在监视 %s —— 保存即重新运行，Ctrl-C 退出。\n"},
    {"%s has no hints.\n", "%s 没有提示。\n"},
    {"%sHint %d/%d:%s %s\n", "%s提示 %d/%d：%s %s\n"},
    {"(that was the last hint)", "（这是最后一条提示）"},

    /* cudojo list */
    {"Workspace %s (your files are here)\n\n", "工作区 %s（你的文件在这里）\n\n"},
    {"  (%d attempts)", "  （已尝试 %d 次）"},
    {"   %s← next: %s%s", "   %s← 下一个：%s%s"},
    {"%d of %d exercises passed.", "已通过 %d/%d 个练习。"},
    {" Next: cudojo run %s", " 下一个：cudojo run %s"},

    /* cudojo progress */
    {"%s is this workspace's own progress: nothing to merge.\n", "%s 就是本工作区自己的进度：无需合并。\n"},
    {"Merged %s (workspace %s): ", "已合并 %s（工作区 %s）："},
    {"without a uuid", "无 uuid"},
    {"%d attempts added", "新增 %d 次尝试"},
    {", %d already here, ", "，%d 次已存在，"},
    {"%d hints newly taken", "新查看 %d 条提示"},
    {", %d exercises in it.\n", "，其中含 %d 个练习。\n"},
    {"exercise", "练习"},
    {"status", "状态"},
    {"attempts", "尝试次数"},
    {"first pass", "首次通过"},
    {"best", "最佳"},
    {"hints", "提示"},
    {"%d of %d exercises passed, ", "已通过 %d/%d 个练习，"},
    {"%d attempts, ", "尝试 %d 次，"},
    {"%.1f s spent running.\n", "运行共用时 %.1f 秒。\n"},

    /* the workbench: every screen (app/tui/tui_main.c, tui_help.c) */
    {"terminal too small", "终端窗口太小"},
    {"need %dx%d, have %dx%d", "需要 %dx%d，当前 %dx%d"},
    {"q quits", "按 q 退出"},
    {"help for the screen you are on", "当前界面的帮助"},
    {"back (quit on the course map)", "返回（在课程地图上则退出）"},
    {"quit from anywhere", "在任何界面直接退出"},
    {"progress screen", "进度界面"},
    {"device screen", "设备界面"},
    {"language of the lessons and the workbench: English / 中文", "课文和工作台的语言：English / 中文"},
    {"redraw the screen", "重绘屏幕"},
    {"stop a run in progress, else quit", "停止正在进行的运行，否则退出"},
    {"This screen", "本界面"},
    {"Everywhere", "所有界面"},
    {"  The mouse wheel scrolls. Lessons are in lessons/<chapter>/README.md;",
     "  鼠标滚轮可以滚动。课文在 lessons/<章节>/README.md；"},
    {"  your files are in %s, runs are recorded in its .cudojo/progress.db.",
     "  你的文件在 %s，每次运行都记录在其中的 .cudojo/progress.db。"},
    {"cudojo — Help: %s", "cudojo — 帮助：%s"},
    {"Help", "帮助"},

    /* the course map (app/tui/tui_map.c) */
    {"Course map", "课程地图"},
    {"cudojo — Course map", "cudojo — 课程地图"},
    {"Progress", "进度"},
    {" %d/%d passed  %d%%  time %s", " 已通过 %d/%d  %d%%  用时 %s"},
    {"Your files: ", "你的文件："},
    {"failing ×%d", "未通过 ×%d"},
    {"failing x%d", "未通过 x%d"},
    {"Enter open  l lesson  n next  p progress  d device  L lang  ? help  q quit",
     "Enter 打开  l 课文  n 下一个  p 进度  d 设备  L 语言  ? 帮助  q 退出"},
    {"Every exercise passed. Well done!", "所有练习都已通过，做得好！"},
    {"move", "移动"},
    {"page, first, last", "翻页、第一项、最后一项"},
    {"open the exercise (on a chapter: its lesson)", "打开练习（在章节上：打开它的课文）"},
    {"read the chapter's lesson", "阅读本章课文"},
    {"jump to the next exercise to do", "跳到下一个要做的练习"},
    {"progress: attempts, first pass, best time", "进度：尝试次数、首次通过、最佳时间"},
    {"device: GPU, toolkit, backends", "设备：GPU、工具包、后端"},
    {"switch language (English / 中文)", "切换语言（English / 中文）"},
    {"this help", "本帮助"},
    {"quit", "退出"},

    /* the progress screen (app/tui/tui_progress.c) */
    {"cudojo — Progress", "cudojo — 进度"},
    {"best ms", "最佳 ms"},
    {"time", "用时"},
    {"%d of %d exercises passed", "已通过 %d/%d 个练习"},
    {"%d attempts", "尝试 %d 次"},
    {"%d hints taken", "查看提示 %d 条"},
    {"%s, %s, %s spent running", "%s，%s，运行共用时 %s"},

    /* the lesson reader (app/tui/tui_lesson.c) */
    {"Lesson reader", "课文阅读"},
    {"cudojo — Lesson: %s", "cudojo — 课文：%s"},
    {"Enter exercise  / search  n next  ] section  L lang  ? help  q back",
     "Enter 练习  / 搜索  n 下一处  ] 小节  L 语言  ? 帮助  q 返回"},
    {"scroll a line", "滚动一行"},
    {"scroll a page", "滚动一页"},
    {"half a page down / up", "向下 / 向上半页"},
    {"start / end", "开头 / 结尾"},
    {"next / previous section", "下一节 / 上一节"},
    {"search, next, previous match", "搜索、下一处、上一处匹配"},
    {"open the chapter's next exercise", "打开本章的下一个练习"},
    {"back to the map", "返回课程地图"},
};

const size_t I18N_ZH_COUNT = sizeof I18N_ZH / sizeof I18N_ZH[0];
