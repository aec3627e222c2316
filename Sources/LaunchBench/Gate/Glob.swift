/// Shell-style wildcard patterns: `*` any run of characters (including `/`), `?` one character,
/// `[abc]` / `[a-z]` / `[!abc]` one character of (or not of) a set; everything else literally.
package struct Glob: Sendable, Hashable {
    /// The pattern as written.
    package let pattern: String
    private let tokens: [Token]

    private enum Token: Hashable {
        case literal(Character)
        case any
        case anyRun
        case set([ClosedRange<Character>], negated: Bool)
    }

    /// Compiles `pattern`; an unclosed `[` is taken literally.
    package init(_ pattern: String) {
        self.pattern = pattern
        var tokens: [Token] = []
        let characters = Array(pattern)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "*":
                if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?":
                tokens.append(.any)
            case "[":
                if let (set, next) = Self.parseSet(characters, from: index + 1) {
                    tokens.append(set)
                    index = next
                    continue
                }
                tokens.append(.literal("["))
            default:
                tokens.append(.literal(character))
            }
            index += 1
        }
        self.tokens = tokens
    }

    /// Whether the pattern has wildcards (else it is a plain name).
    package var isPattern: Bool { tokens.contains { if case .literal = $0 { false } else { true } } }

    /// Whether `text` matches the whole pattern.
    package func matches(_ text: String) -> Bool {
        let text = Array(text)
        // Iterative matcher with one backtrack point for the last `*` (linear in practice).
        var t = 0
        var p = 0
        var starP = -1
        var starT = 0
        while t < text.count {
            if p < tokens.count, Self.matchesOne(tokens[p], text[t]) {
                t += 1
                p += 1
            } else if p < tokens.count, tokens[p] == .anyRun {
                starP = p
                starT = t
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    private static func matchesOne(_ token: Token, _ character: Character) -> Bool {
        switch token {
        case .literal(let expected): return expected == character
        case .any: return true
        case .anyRun: return false
        case .set(let ranges, let negated): return ranges.contains { $0.contains(character) } != negated
        }
    }

    /// Parses `[...]` after the `[`; `nil` when there is no closing `]` (then `[` is literal).
    private static func parseSet(_ characters: [Character], from start: Int) -> (Token, Int)? {
        var index = start
        var negated = false
        if index < characters.count, characters[index] == "!" || characters[index] == "^" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<Character>] = []
        var first = true
        while index < characters.count {
            let character = characters[index]
            if character == "]" && !first { return (.set(ranges, negated: negated), index + 1) }
            first = false
            if index + 2 < characters.count, characters[index + 1] == "-", characters[index + 2] != "]" {
                let upper = characters[index + 2]
                if character <= upper { ranges.append(character...upper) }
                index += 3
            } else {
                ranges.append(character...character)
                index += 1
            }
        }
        return nil
    }
}
