// 简体中文目录：键与英文目录完全相同（编译器检查），占位符 `{name}` 也相同（测试检查）。

import type { MessageKey } from "./en";

export const zhCN: Readonly<Record<MessageKey, string>> = {
  "app.startFailed": "Gantry 无法打开窗口",
  "app.loading": "正在加载…",
  "common.close": "关闭",
  "common.loading": "正在加载…",

  "help.title": "键盘快捷键",
  "shortcuts.area.chat": "对话",
  "shortcuts.area.approval": "授权对话框",
  "shortcuts.area.question": "模型的提问",
  "shortcuts.area.everywhere": "任何位置",
  "shortcuts.send": "发送消息",
  "shortcuts.newLine": "在消息中换行",
  "shortcuts.stop": "停止当前回合",
  "shortcuts.allowOnce": "允许一次",
  "shortcuts.deny": "拒绝（附上已输入的理由）",
  "shortcuts.moreChoices": "切换到“本次会话允许”及其他选项",
  "shortcuts.sendAnswer": "发送已输入的回答",
  "shortcuts.dismiss": "忽略",
  "shortcuts.help": "显示或隐藏本帮助",
  "shortcuts.closePanel": "关闭面板或对话框",
  "shortcuts.moveFocus": "在控件之间移动",
};
