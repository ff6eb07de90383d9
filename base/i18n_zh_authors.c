/* base/i18n_zh_authors.c: the Chinese catalogue of the authors' and
 * instructors' commands: cudojo new, lint, verify --mutants, class and
 * grade (their summaries, messages and end-of-run lines; --json stays
 * English), and cudojo exec's usage errors. The rules are base/i18n_zh.c's
 * (terms from lessons/GLOSSARY.zh-CN.md, the same printf conversions in the
 * same order, leading and trailing newlines kept). */
#include "base/i18n.h"

const I18nEntry I18N_ZH_AUTHORS[] = {
    /* cudojo grade: the progress line and the end-of-run summary (app/grade_run.c, app/cmd_grade.c) */
    {"instructors: grade a class against your course", "讲师用：按你的课程给全班评分"},
    {"graded %zu students on %zu exercises: %lld runs in %.1f s (%.1f runs/s), %lld already graded, %lld missing files\n",
     "已为 %zu 名学员的 %zu 个练习评分：%lld 次运行，用时 %.1f 秒（每秒 %.1f 次），%lld 次此前已评，缺少 %lld 个文件\n"},
    {"GPU lock: %lld runs held it %.1f s alone (timed) and %.1f s shared, and waited %.1f s for it\n",
     "GPU 锁：%lld 次运行独占（计时）持有 %.1f 秒、共享持有 %.1f 秒，等待它 %.1f 秒\n"},
    {"%d exercises need a GPU and were not graded on the emulator (not counted)\n",
     "%d 个练习需要 GPU，没有在模拟器上评分（不计入）\n"},
    {"problem: %s\n", "问题：%s\n"},
    {"gradebook: %s/gradebook.csv, %s/gradebook.json; per student: %s/students/NAME/{results.json,feedback.md}; similarity: %s/similarity.md\n",
     "成绩册：%s/gradebook.csv、%s/gradebook.json；每名学员：%s/students/NAME/{results.json,feedback.md}；相似度：%s/similarity.md\n"},
    {"\r  [%s] %lld/%lld runs  %.1f runs/s  ETA %s ", "\r  [%s] %lld/%lld 次运行  每秒 %.1f 次  预计剩余 %s "},
    {"grade: %lld/%lld runs, %.1f runs/s, ETA %s\n", "grade：%lld/%lld 次运行，每秒 %.1f 次，预计剩余 %s\n"},
    {"grade: %lld runs to do (%d students, %d workers)%s\n", "grade：要做 %lld 次运行（%d 名学员，%d 个工作进程）%s\n"},
    {", the rest already graded", "，其余的此前已评"},
};

const size_t I18N_ZH_AUTHORS_COUNT = sizeof I18N_ZH_AUTHORS / sizeof I18N_ZH_AUTHORS[0];
