/**
 * The realm's stand-in for @babel/generator's TypeScript printers
 * (`lib/generators/typescript.js`, ~3 KB gzipped; see vite.realm.config.ts).
 * The transform removes every TypeScript node and modifier before printing
 * (lowerSyntax.ts, lowerRuntimeTypeScript.ts): the output is JavaScript that
 * eval runs, which no TypeScript printer could produce anyway. The one
 * helper other printers call prints a class member's modifiers; of those,
 * only `static` is JavaScript.
 */
interface ClassMember {
  static?: boolean;
  declare?: boolean;
  accessibility?: string | null;
  abstract?: boolean;
  override?: boolean;
  readonly?: boolean;
}

interface Printer {
  word(text: string): void;
  space(): void;
}

export function _tsPrintClassMemberModifiers(this: Printer, node: ClassMember): void {
  if (node.declare || node.accessibility || node.abstract || node.override || node.readonly) {
    throw new Error("the realm's code generator prints no TypeScript class modifiers");
  }
  if (node.static) {
    this.word("static");
    this.space();
  }
}
