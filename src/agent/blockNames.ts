import { parse } from "@babel/parser";
import type { Node } from "@babel/types";

/**
 * Which top-level names a code block declares and which it reads, as the
 * realm's transform sees them (workers/realm/executor: every top-level
 * declaration is a binding of the session scope; every reference that no
 * local binding resolves reads the session scope). Pure; parses with Babel
 * (TypeScript and JSX), loaded with the editor, never in the initial bundle.
 *
 * - `declared`: `var`/`let`/`const` (destructuring too), `function`,
 *   `class`, `enum` and import bindings at the top level, and `var`s nested
 *   in top-level blocks (hoisted there).
 * - `reads`: names referenced where no local binding (a parameter, a block's
 *   own `let`, a catch parameter, a function's name…) shadows them, and that
 *   the block does not declare itself. JSX counts: `<Chart />` reads `Chart`
 *   (a lowercase tag is an element, `<a.B />` reads `a`). Types never do.
 *
 * Code that does not parse declares and reads nothing.
 */
export interface BlockNames {
  declared: string[];
  reads: string[];
}

type Scope = Set<string>;

/** Keys holding only types (TypeScript): never references. */
const TYPE_KEYS = new Set([
  "typeAnnotation",
  "returnType",
  "typeParameters",
  "typeArguments",
  "superTypeParameters",
  "implements",
  "predicate",
]);
const SKIP_KEYS = new Set([
  "type",
  "start",
  "end",
  "loc",
  "range",
  "extra",
  "leadingComments",
  "trailingComments",
  "innerComments",
  "comments",
  "errors",
]);
/** TypeScript nodes that hold an expression (the rest are types or type-only declarations). */
const TS_EXPRESSIONS = new Set([
  "TSAsExpression",
  "TSSatisfiesExpression",
  "TSNonNullExpression",
  "TSTypeAssertion",
  "TSInstantiationExpression",
  "TSParameterProperty",
  "TSExportAssignment",
]);

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/** The names a binding pattern binds. */
function patternNames(node: Node | null | undefined, into: string[] = []): string[] {
  if (!node) return into;
  switch (node.type) {
    case "Identifier":
      into.push(node.name);
      break;
    case "ObjectPattern":
      for (const property of node.properties) {
        if (property.type === "RestElement") patternNames(property.argument, into);
        else patternNames(property.value as Node, into);
      }
      break;
    case "ArrayPattern":
      for (const element of node.elements) patternNames(element, into);
      break;
    case "AssignmentPattern":
      patternNames(node.left, into);
      break;
    case "RestElement":
      patternNames(node.argument, into);
      break;
    case "TSParameterProperty":
      patternNames(node.parameter, into);
      break;
  }
  return into;
}

/** `var` names of a function body (or the program), into nested blocks but not nested functions. */
function varNames(node: Node | null | undefined, into: string[] = []): string[] {
  if (!node) return into;
  switch (node.type) {
    case "VariableDeclaration":
      if (node.kind === "var") for (const declarator of node.declarations) patternNames(declarator.id, into);
      break;
    case "BlockStatement":
    case "Program":
    case "StaticBlock":
      for (const statement of node.body) varNames(statement, into);
      break;
    case "IfStatement":
      varNames(node.consequent, into);
      varNames(node.alternate, into);
      break;
    case "ForStatement":
      varNames(node.init as Node, into);
      varNames(node.body, into);
      break;
    case "ForInStatement":
    case "ForOfStatement":
      varNames(node.left, into);
      varNames(node.body, into);
      break;
    case "WhileStatement":
    case "DoWhileStatement":
    case "LabeledStatement":
    case "WithStatement":
      varNames(node.body, into);
      break;
    case "TryStatement":
      varNames(node.block, into);
      varNames(node.handler?.body, into);
      varNames(node.finalizer, into);
      break;
    case "SwitchStatement":
      for (const item of node.cases) for (const statement of item.consequent) varNames(statement, into);
      break;
    case "ExportNamedDeclaration":
      varNames(node.declaration, into);
      break;
  }
  return into;
}

/** Names a statement list binds in its own block: let/const/class/function/enum (and imports at the top). */
function lexicalNames(statements: readonly Node[], into: string[] = []): string[] {
  for (const statement of statements) {
    const node =
      (statement.type === "ExportNamedDeclaration" || statement.type === "ExportDefaultDeclaration") &&
      statement.declaration
        ? (statement.declaration as Node)
        : statement;
    switch (node.type) {
      case "VariableDeclaration":
        if (node.kind !== "var") for (const declarator of node.declarations) patternNames(declarator.id, into);
        break;
      case "FunctionDeclaration":
      case "ClassDeclaration":
      case "TSEnumDeclaration":
        if (node.id) into.push(node.id.name);
        break;
      case "ImportDeclaration":
        if (node.importKind !== "type")
          for (const specifier of node.specifiers) {
            if (specifier.type === "ImportSpecifier" && specifier.importKind === "type") continue;
            into.push(specifier.local.name);
          }
        break;
    }
  }
  return into;
}

class Walker {
  /** Innermost last; the program's top level is not a scope here (its names are the session's). */
  private readonly scopes: Scope[] = [];
  readonly referenced = new Set<string>();

  private reference(name: string): void {
    for (let index = this.scopes.length - 1; index >= 0; index -= 1) if (this.scopes[index].has(name)) return;
    this.referenced.add(name);
  }

  private within(names: readonly string[], walk: () => void): void {
    this.scopes.push(new Set(names));
    try {
      walk();
    } finally {
      this.scopes.pop();
    }
  }

  /** A binding pattern: its defaults and computed keys are read, its names are not. */
  private pattern(node: Node | null | undefined): void {
    if (!node) return;
    switch (node.type) {
      case "Identifier":
        return;
      case "ObjectPattern":
        for (const property of node.properties) {
          if (property.type === "RestElement") this.pattern(property.argument);
          else {
            if (property.computed) this.node(property.key);
            this.pattern(property.value as Node);
          }
        }
        return;
      case "ArrayPattern":
        for (const element of node.elements) this.pattern(element);
        return;
      case "AssignmentPattern":
        this.pattern(node.left);
        this.node(node.right);
        return;
      case "RestElement":
        this.pattern(node.argument);
        return;
      case "TSParameterProperty":
        this.pattern(node.parameter);
        return;
      default:
        // An assignment target such as `obj.x` in `[obj.x] = …`.
        this.node(node);
    }
  }

  private statements(list: readonly Node[]): void {
    for (const statement of list) this.node(statement);
  }

  private func(node: Node & { params: Node[]; body: Node; id?: Node | null }, ownName: boolean): void {
    const names = ["arguments", ...node.params.flatMap((param) => patternNames(param))];
    if (ownName && node.id?.type === "Identifier") names.push(node.id.name);
    const body = node.body;
    if (body.type === "BlockStatement") names.push(...varNames(body), ...lexicalNames(body.body));
    this.within(names, () => {
      for (const param of node.params) this.pattern(param);
      if (body.type === "BlockStatement") this.statements(body.body);
      else this.node(body);
    });
  }

  node(node: Node | null | undefined): void {
    if (!node) return;
    if (node.type.startsWith("TS") && !TS_EXPRESSIONS.has(node.type) && node.type !== "TSEnumDeclaration") return;
    switch (node.type) {
      case "Program":
        this.statements(node.body);
        return;
      case "Identifier":
        this.reference(node.name);
        return;
      case "VariableDeclarator":
        this.pattern(node.id);
        this.node(node.init);
        return;
      case "FunctionDeclaration":
        this.func(node, false);
        return;
      case "FunctionExpression":
        this.func(node, true);
        return;
      case "ArrowFunctionExpression":
        this.func(node, false);
        return;
      case "ObjectMethod":
      case "ClassMethod":
      case "ClassPrivateMethod":
        if ("computed" in node && node.computed) this.node(node.key);
        for (const decorator of node.decorators ?? []) this.node(decorator);
        this.func(node, false);
        return;
      case "ClassDeclaration":
      case "ClassExpression": {
        for (const decorator of node.decorators ?? []) this.node(decorator);
        this.node(node.superClass);
        const names = node.type === "ClassExpression" && node.id ? [node.id.name] : [];
        this.within(names, () => this.node(node.body));
        return;
      }
      case "ClassProperty":
      case "ClassPrivateProperty":
      case "ClassAccessorProperty":
        if ("computed" in node && node.computed) this.node(node.key);
        for (const decorator of node.decorators ?? []) this.node(decorator);
        this.node(node.value);
        return;
      case "ObjectProperty":
        if (node.computed) this.node(node.key);
        this.node(node.value as Node);
        return;
      case "MemberExpression":
      case "OptionalMemberExpression":
        this.node(node.object);
        if (node.computed) this.node(node.property);
        return;
      case "BlockStatement":
      case "StaticBlock":
        this.within(lexicalNames(node.body), () => this.statements(node.body));
        return;
      case "ForStatement":
        this.within(node.init ? lexicalNames([node.init]) : [], () => {
          this.node(node.init);
          this.node(node.test);
          this.node(node.update);
          this.node(node.body);
        });
        return;
      case "ForInStatement":
      case "ForOfStatement":
        this.within(lexicalNames([node.left]), () => {
          this.node(node.left);
          this.node(node.right);
          this.node(node.body);
        });
        return;
      case "SwitchStatement":
        this.node(node.discriminant);
        this.within(lexicalNames(node.cases.flatMap((item) => item.consequent)), () => {
          for (const item of node.cases) {
            this.node(item.test);
            this.statements(item.consequent);
          }
        });
        return;
      case "CatchClause":
        this.within(patternNames(node.param), () => {
          this.pattern(node.param);
          this.node(node.body);
        });
        return;
      case "LabeledStatement":
        this.node(node.body);
        return;
      case "BreakStatement":
      case "ContinueStatement":
      case "ImportDeclaration":
      case "MetaProperty":
      case "PrivateName":
      case "JSXText":
      case "JSXClosingElement":
      case "JSXClosingFragment":
      case "JSXOpeningFragment":
      case "TSEnumDeclaration":
        return;
      case "ExportNamedDeclaration":
        if (node.declaration) this.node(node.declaration);
        else if (!node.source)
          for (const specifier of node.specifiers)
            if (specifier.type === "ExportSpecifier" && specifier.local.type === "Identifier")
              this.reference(specifier.local.name);
        return;
      case "ExportSpecifier":
        return;
      case "JSXOpeningElement":
        this.jsxName(node.name);
        for (const attribute of node.attributes) {
          if (attribute.type === "JSXAttribute") this.node(attribute.value);
          else this.node(attribute.argument);
        }
        return;
      case "JSXExpressionContainer":
        if (node.expression.type !== "JSXEmptyExpression") this.node(node.expression);
        return;
    }
    for (const key of Object.keys(node)) {
      if (SKIP_KEYS.has(key) || TYPE_KEYS.has(key)) continue;
      const value = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) this.node(item);
      } else if (isNode(value)) this.node(value);
    }
  }

  private jsxName(name: Node): void {
    if (name.type === "JSXIdentifier") {
      // Lowercase (or dashed) tags are elements; a capitalised one is a component the code names.
      if (/^[A-Z_$]/.test(name.name)) this.reference(name.name);
    } else if (name.type === "JSXMemberExpression") {
      let object: Node = name.object;
      while (object.type === "JSXMemberExpression") object = object.object;
      if (object.type === "JSXIdentifier") this.reference(object.name);
    }
  }
}

export function blockNames(code: string): BlockNames {
  let program;
  try {
    program = parse(code, {
      sourceType: "module",
      plugins: ["typescript", "jsx"],
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
      allowUndeclaredExports: true,
      errorRecovery: true,
    }).program;
  } catch {
    return { declared: [], reads: [] };
  }
  const declared = [...new Set([...lexicalNames(program.body), ...varNames(program)])];
  const walker = new Walker();
  walker.node(program);
  const own = new Set(declared);
  return { declared, reads: [...walker.referenced].filter((name) => !own.has(name)) };
}

/**
 * The code blocks after an edited one that read a name it declares (or a
 * name a block that does declares in turn): `later` in session order, each
 * with the code it runs now. Returns their keys.
 */
export function dependentBlocks<K>(declared: readonly string[], later: readonly { key: K; code: string }[]): K[] {
  const names = new Set(declared);
  const dependent: K[] = [];
  for (const block of later) {
    const { declared: own, reads } = blockNames(block.code);
    if (reads.some((name) => names.has(name))) {
      dependent.push(block.key);
      // What it declares now derives from the edit: the blocks that read it are stale too.
      for (const name of own) names.add(name);
    } else {
      // A later block that declares the name again hides the edited one's from the blocks after it.
      for (const name of own) names.delete(name);
    }
  }
  return dependent;
}
