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
};

const size_t I18N_ZH_COUNT = sizeof I18N_ZH / sizeof I18N_ZH[0];
