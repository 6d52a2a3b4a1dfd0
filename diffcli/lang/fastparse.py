"""A lean driver for the diffscript LALR parser: how `diffcli.lang.parse` parses.

It runs the very tables Lark builds from ``grammar/diffscript.lark`` (its parse table,
its lexer's terminal regex and keyword map) and the very callbacks (`builder.Builder`),
but without Lark's per-token machinery, and without Lark at all, as the tables ship
with the package:

- `plan` reads the tables out of a Lark parser into plain data (dicts, lists, tuples,
  strings, ints), which `parsetables` ships as JSON inside the package, keyed by the
  grammar text; a process builds its `FastParser` from that file and never imports
  Lark while scripts parse;
- the lexer is one anchored scan over the text with Lark's own terminal regex, and
  applies Python's layout rules (indentation, bracket matching) as it goes, with the
  `indent.Layout` that Lark's postlexer (`larkparse._Indenter`) runs too;
- the shift/reduce loop keeps states as ints, one dict of actions per state, and a
  precomputed (size, goto symbol, kind, callback) per rule.

It handles only scripts that parse. On anything else, an unexpected token, a character
no terminal matches, bad indentation or brackets, or an error raised by a callback, it
raises, and `parse` runs Lark's own parser on the same text, which words the error. So
this module never decides what an error says; it only has to agree with Lark on every
script that parses, which the tests check (`tests/lang/test_fastparse.py`).
"""

from __future__ import annotations

import re
import sys
from functools import partial

from diffcli.lang.indent import Layout
from diffcli.lang.tokens import Token

__all__ = ["FastParser", "GiveUp", "build", "plan"]

# Bump when `plan`'s output or its meaning changes: tables shipped for an older format
# (`parsetables`) are then ignored until regenerated.
PLAN_FORMAT = 1

# What the lexer does with a terminal, as bit flags.
_IGNORE = 1  # %ignore'd: skipped
_COUNT_NL = 2  # may contain newlines: count them
_KEYWORDS = 4  # may be a keyword (Lark's "unless" callback): look the text up
_NEWLINE = 8  # the Indenter's newline terminal
_OPEN = 16  # an opening bracket
_CLOSE = 32  # a closing bracket

# How a rule's reduction builds its value (the order matters to `FastParser.parse`).
_SAME = 0  # `?rule: item`: the single child is the value
_CALL1 = 1  # callback([child]), for a rule of one symbol
_CALL = 2  # callback(children)
_LIST = 3  # a `_helper` rule: the children list, which the rule above splices in
_GENERIC = 4  # splice helpers, then callback or list, maybe keeping a single child;
# also any rule of no symbols


class _Unsupported(Exception):
    pass


class GiveUp(Exception):
    """The fast path stops here: Lark's parser takes the text over."""


def without_possessive(pattern: str) -> str:
    """`pattern` with its possessive quantifiers (``*+``, ``++``, ``?+``, ``{m,n}+``) made
    greedy ones, for Pythons before 3.11, which do not know them. The grammar's patterns
    are unambiguous, so both match the same text; only the memory differs."""
    out = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":  # a class: copy it to its closing bracket
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i : j + 1])
            i = j + 1
            continue
        out.append(char)
        i += 1
        if char in "*+?}" and i < n and pattern[i] == "+" and not (char == "?" and out[-2:-1] == ["("]):
            i += 1  # the possessive mark
    return "".join(out)


_NEEDS_GREEDY = sys.version_info < (3, 11)


def _require(condition: bool) -> None:
    if not condition:
        raise _Unsupported


# ------------------------------------------------------------- the tables


def plan(lark, max_depth: int) -> dict:
    """The driver's tables for `lark` (a Lark LALR parser with an Indenter postlexer and
    an inline transformer) as plain data; `max_depth` is the Indenter's bracket-nesting
    cap. Raises when the parser's configuration is one this driver does not reproduce."""
    options = lark.options
    _require(options.parser == "lalr" and options.lexer == "basic")
    _require(not options.maybe_placeholders and not options.propagate_positions)
    _require(not options.lexer_callbacks and not options.g_regex_flags)
    _require(options.tree_class is None)
    return _plain({**_lexer_plan(lark, max_depth), **_table_plan(lark)})


def _plain(value):
    """`value` with every str subclass (Lark names some symbols with its Token) made a
    plain str, which `marshal` can store."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _lexer_plan(lark, max_depth: int) -> dict:
    postlex = lark.options.postlex
    lexer = lark.parser.lexer.lexer  # the BasicLexer behind the PostLexConnector
    scanner = lexer.scanner  # builds Lark's regex and callbacks if not yet
    _require(len(scanner._mres) == 1)
    regex = scanner._mres[0]
    _require(isinstance(regex, re.Pattern))

    keywords = {}
    kinds = {}
    for name, callback in lexer.callback.items():
        _require(type(callback).__name__ == "UnlessCallback")
        for term in callback.scanner.terminals:
            _require(term.pattern.type == "str" and not term.pattern.flags)
            keywords[term.pattern.value] = term.name
        kinds[name] = _KEYWORDS
    for term in lexer.terminals:
        kind = kinds.get(term.name, 0)
        if term.name in lexer.ignore_types:
            _require(not kind)
            kind |= _IGNORE
        if term.name in lexer.newline_types:
            kind |= _COUNT_NL
        if term.name == postlex.NL_type:
            kind |= _NEWLINE
        if term.name in postlex.OPEN_PAREN_types:
            kind |= _OPEN
        if term.name in postlex.CLOSE_PAREN_types:
            kind |= _CLOSE
        kinds[term.name] = kind
    pairs = dict(postlex._PAIRS)
    _require(set(pairs) == set(postlex.CLOSE_PAREN_types))
    return {
        "regex": regex.pattern,
        "flags": regex.flags,
        "kinds": kinds,
        "keywords": keywords,
        "pairs": pairs,
        "tab_len": postlex.tab_len,
        "indent_type": postlex.INDENT_type,
        "dedent_type": postlex.DEDENT_type,
        "max_depth": max_depth,
    }


def _table_plan(lark) -> dict:
    from lark.parsers.lalr_analysis import Shift  # (Lark: plan() reads a Lark parser)

    table = lark.parser.parser.parser.parse_table
    _require(len(table.start_states) == 1)
    (start,) = table.start_states
    builder = lark.options.transformer
    _require(getattr(builder, "__default__", None) is None)

    # Lark numbers its states (and meets its rules) in an order that changes from one
    # process to the next; number them in a canonical order instead, breadth first from
    # the start state over sorted symbols, so `plan` builds the same tables every time.
    old_start, old_end = table.start_states[start], table.end_states[start]
    number = {old_start: 0}
    order = [old_start]
    for state in order:  # grows while it is walked
        for symbol in sorted(table.states[state]):
            action, arg = table.states[state][symbol]
            if action is Shift and arg not in number:
                number[arg] = len(order)
                order.append(arg)
    _require(len(order) == len(table.states) and old_end in number)

    rules: list = []
    index: dict = {}
    actions = []
    for state in order:
        row = {}
        for symbol in sorted(table.states[state]):
            action, arg = table.states[state][symbol]
            if action is Shift:
                row[symbol] = number[arg]
            else:
                if arg not in index:
                    index[arg] = len(rules)
                    rules.append(_rule_plan(arg))
                row[symbol] = ~index[arg]
        actions.append(row)
    return {"start": 0, "end": number[old_end], "actions": actions, "rules": rules}


def _rule_plan(rule) -> tuple:
    """(size, goto symbol, kind, method name, include) for reducing by `rule`, as Lark's
    ParseTreeBuilder would build the value (keep_all_tokens, no placeholders)."""
    name = rule.origin.name
    options = rule.options
    expansion = rule.expansion
    keep_all = options.keep_all_tokens
    positions = tuple(
        (i, not sym.is_term and sym.name.startswith("_"))
        for i, sym in enumerate(expansion)
        if keep_all or not (sym.is_term and sym.filter_out)
    )
    filtering = len(positions) < len(expansion) or any(expand for _, expand in positions)
    single = bool(options.expand1 and not rule.alias)
    _require(not (name.startswith("_") and single))
    method_name = rule.alias or options.template_source or name
    size = len(expansion)
    if single and size == 1 and not filtering:
        return size, name, _SAME, method_name, None
    if not filtering and not single and size:
        if name.startswith("_"):
            return size, name, _LIST, method_name, None
        return size, name, (_CALL1 if size == 1 else _CALL), method_name, None
    return size, name, _GENERIC, method_name, (positions, single)


def _callback(builder, method_name: str, origin: str):
    """What reduces a rule: the builder's method, or a tree node when it has none (as
    Lark's ParseTreeBuilder does); None for a `_helper` rule, whose value is the list
    of its children, spliced into the rule above."""
    method = getattr(builder, method_name, None)
    _require(method is None or getattr(method, "visit_wrapper", None) is None)
    if origin.startswith("_"):
        _require(method is None)
        return None
    if method is not None:
        return method
    from lark import Tree  # (Lark: only for a rule without a callback)

    return partial(Tree, method_name)


def build(lark, max_depth: int):
    """A FastParser for `lark` (see `plan`) with its own transformer's callbacks, or None
    when its configuration is one this driver does not reproduce exactly."""
    try:
        return FastParser(plan(lark, max_depth), lark.options.transformer)
    except Exception:
        return None


# --------------------------------------------------------------- the driver


class FastParser:
    """Built once from a plan. `parse` keeps its state in locals; the one shared thing
    it writes is a memo of pure results, so threads may share a FastParser."""

    def __init__(self, tables: dict, builder, statements=()):
        pattern = tables["regex"]
        self._regex = re.compile(without_possessive(pattern) if _NEEDS_GREEDY else pattern, tables["flags"])
        self._kinds = tables["kinds"]
        self._keywords = tables["keywords"]
        self._pairs = tables["pairs"]
        self._tab_len = tables["tab_len"]
        self._indent_type = tables["indent_type"]
        self._dedent_type = tables["dedent_type"]
        self._max_depth = tables["max_depth"]
        self._start = tables["start"]
        self._end = tables["end"]
        self._actions = tables["actions"]
        rules = []
        for size, origin, kind, method_name, include in tables["rules"]:
            _require(_SAME <= kind <= _GENERIC)
            callback = None if kind == _SAME else _callback(builder, method_name, origin)
            rules.append((size, origin, kind, callback, include))
        self._rules = rules
        # the rules that build a statement (their origin is in `statements`), which a
        # budget counts (see `parse`)
        self._statement_rules = [
            i for i, rule in enumerate(rules) if rule[1] in statements and rule[3] is not None
        ]
        self._chains: dict = {}  # see _same_chain

    # -------------------------------------------------------------- lexing
    def tokens(self, text: str):
        """The token stream the Indenter would hand the parser (without $END), made as
        the parser asks for it: only the tokens the parser holds are alive at once."""
        kinds = self._kinds
        keywords = self._keywords
        new = str.__new__

        line, line_start, pos = 1, 0, 0
        layout = Layout(
            _borrow,
            max_depth=self._max_depth,
            pairs=self._pairs,
            tab_len=self._tab_len,
            indent_type=self._indent_type,
            dedent_type=self._dedent_type,
        )
        brackets = layout.brackets
        first = True
        last = None
        for match in iter(self._regex.scanner(text).match, None):
            start = pos
            pos = match.end()
            typ = match.lastgroup
            kind = kinds[typ]
            if kind & _IGNORE:
                if kind & _COUNT_NL:
                    value = match.group()
                    newlines = value.count("\n")
                    if newlines:
                        line += newlines
                        line_start = start + value.rindex("\n") + 1
                continue
            value = match.group()
            token = new(Token, value)
            token.value = value
            token.start_pos = start
            token.line = line
            token.column = start - line_start + 1
            if kind & _COUNT_NL:
                newlines = value.count("\n")
                if newlines:
                    line += newlines
                    line_start = start + value.rindex("\n") + 1
            token.end_line = line
            token.end_column = pos - line_start + 1
            token.end_pos = pos
            token.type = keywords.get(value, typ) if kind & _KEYWORDS else typ
            last = token
            if kind < _NEWLINE:  # not a newline or a bracket
                if first:
                    first = False
                    layout.first(token)
                yield token
                continue
            if kind & _NEWLINE:
                if brackets:
                    continue
                yield token
                if token.end_column != 1 or layout.levels[-1]:  # (else: no indentation, none open)
                    yield from layout.newline(token)
                continue
            if first:
                first = False
                layout.first(token)
            if kind & _CLOSE:
                layout.close(token)
            elif kind & _OPEN:
                layout.open(token)
            yield token
        if pos != len(text):
            raise GiveUp("no terminal matches here")
        yield from layout.end(last)

    # ------------------------------------------------------------- parsing
    def parse(self, text: str, budget=None):
        """The transformer's value for `text`; raises on anything but a clean parse.

        A `budget` bounds the work as it goes: each statement rule's callback is
        `budget.wrap(callback)` for this parse, and every `budget.every` tokens
        `budget.check(depth, token)` sees the depth of the parser's stack; either may
        raise, which ends the parse."""
        tokens = self.tokens(text)
        actions = self._actions
        rules = self._rules
        countdown = every = 1 << 62
        if budget is not None:
            rules = list(rules)
            for i in self._statement_rules:
                size, origin, kind, callback, include = rules[i]
                rules[i] = (size, origin, kind, budget.wrap(callback), include)
            countdown = every = budget.every
        state = self._start
        states = [state]
        values: list = []
        push_state = states.append
        push_value = values.append
        chains = self._chains
        for token in tokens:
            typ = token.type
            code = actions[state][typ]
            while code < 0:
                size, origin, kind, callback, include = rules[~code]
                if kind == _SAME:
                    key = (states[-2], state, typ)
                    top = chains.get(key)
                    if top is None:
                        top = chains[key] = self._same_chain(states[-2], state, typ)
                    state = states[-1] = top
                elif kind == _CALL1:
                    values[-1] = callback([values[-1]])
                    state = states[-1] = actions[states[-2]][origin]
                elif kind <= _LIST:
                    children = values[-size:]
                    del values[-size:]
                    del states[-size:]
                    push_value(children if callback is None else callback(children))
                    state = actions[states[-1]][origin]
                    push_state(state)
                else:
                    state = _reduce(states, values, size, origin, callback, include, actions)
                code = actions[state][typ]
            push_state(code)
            push_value(token)
            state = code
            countdown -= 1
            if not countdown:
                countdown = every
                budget.check(len(states), token)
        end = self._end
        while True:  # $END: reduce down to the start symbol
            code = actions[state]["$END"]
            if code >= 0:
                raise GiveUp("unexpected end of input")
            size, origin, kind, callback, include = rules[~code]
            if kind == _SAME:
                state = states[-1] = actions[states[-2]][origin]
            else:
                state = _reduce(states, values, size, origin, callback, include, actions)
            if state == end:
                return values[-1]

    def _same_chain(self, below: int, top: int, typ: str) -> int:
        """The state on top of `below` after every `?rule: item` reduction that
        lookahead `typ` causes from `top`. Those reductions keep the value and depend
        only on (below, top, typ), so `parse` runs each chain once and remembers it."""
        actions, rules = self._actions, self._rules
        code = actions[top][typ]
        while code < 0 and rules[~code][2] == _SAME:
            top = actions[below][rules[~code][1]]
            code = actions[top][typ]
        return top


def _reduce(states, values, size, origin, callback, include, actions) -> int:
    """Any reduction, the slow general way; returns the new state."""
    if size:
        children = values[-size:]
        del values[-size:]
        del states[-size:]
    else:
        children = []
    if include is not None:
        value = _generic(children, callback, include)
    else:
        value = children if callback is None else callback(children)
    values.append(value)
    state = actions[states[-1]][origin]
    states.append(state)
    return state


def _generic(children: list, callback, include):
    """Lark's ChildFilterLALR_NoPlaceholders (and ExpandSingleChild) on `children`."""
    positions, single = include
    filtered: list = []
    for i, expand in positions:
        if expand:
            if filtered:
                filtered += children[i]
            else:  # left recursion: extend the helper's own list
                filtered = children[i]
        else:
            filtered.append(children[i])
    if single and len(filtered) == 1:
        return filtered[0]
    return filtered if callback is None else callback(filtered)


def _borrow(kind: str, value: str, where: Token) -> Token:
    token = str.__new__(Token, value)
    token.type, token.value = kind, value
    token.start_pos, token.line, token.column = where.start_pos, where.line, where.column
    token.end_line, token.end_column, token.end_pos = where.end_line, where.end_column, where.end_pos
    return token
