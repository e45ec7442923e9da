// The code highlighter, loaded on first use as a chunk of its own (lib/highlight.ts):
// highlight.js's core with the languages people paste most, registered here one by one (the
// full set is ten times the size). Its answer is a tree of scopes and text, which the client
// renders as elements: highlight.js's HTML is never made (the emitter below builds the tree
// instead) and never used.

import type { Emitter, HLJSOptions } from "highlight.js";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

/** Highlighted code: text, and scopes ("keyword", "title.function") around text. */
export type Token = string | { scope: string; children: Token[] };
type Node = { scope: string; children: Token[] };

/** Builds the token tree as highlight.js walks the code (its Emitter interface). */
class TreeEmitter implements Emitter {
  readonly root: Node = { scope: "", children: [] };
  private stack: Node[] = [this.root];

  private get top(): Node {
    return this.stack[this.stack.length - 1];
  }
  addText(text: string): void {
    if (text) this.top.children.push(text);
  }
  startScope(scope: string): void {
    const node: Node = { scope, children: [] };
    this.top.children.push(node);
    this.stack.push(node);
  }
  endScope(): void {
    if (this.stack.length > 1) this.stack.pop();
  }
  // What highlight.js calls besides the interface's methods.
  openNode(scope: string): void {
    this.startScope(scope);
  }
  closeNode(): void {
    this.endScope();
  }
  __addSublanguage(emitter: Emitter, name: string): void {
    const root = (emitter as TreeEmitter).root;
    this.top.children.push({ scope: name ? "language:" + name : "", children: root.children });
  }
  finalize(): void {
    this.stack.length = 1;
  }
  toHTML(): string {
    return "";
  }
}

for (const [name, lang] of Object.entries({ bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, lang);
}
hljs.configure({ __emitter: TreeEmitter } as Partial<HLJSOptions>);

/** The code highlighted as language (a name or an alias: js, py, sh...), or undefined when unknown. */
export function highlight(code: string, language: string): Token[] | undefined {
  if (!hljs.getLanguage(language)) return undefined;
  const result = hljs.highlight(code, { language, ignoreIllegals: true });
  return (result._emitter as TreeEmitter).root.children;
}
