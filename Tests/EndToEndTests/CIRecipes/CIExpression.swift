/// GitHub Actions' expressions, as far as the recipes use them: context paths, 'strings', ==, !=, && and ||
/// with the language's value semantics (`a && 'x' || 'y'`), and always(). Anything else is refused, so a recipe
/// that starts using more fails the test instead of being read wrongly.
struct CIExpression {
    enum Value: Equatable {
        case string(String)
        case bool(Bool)
        case null
        var truthy: Bool {
            switch self {
            case .string(let s): !s.isEmpty
            case .bool(let b): b
            case .null: false
            }
        }
        var text: String {
            switch self {
            case .string(let s): s
            case .bool(let b): String(b)
            case .null: ""
            }
        }
    }

    /// Resolves `github.ref`, `steps.base.outputs.found`…; nil for an unknown name.
    var context: (String) -> Value?

    func evaluate(_ source: String) throws -> Value {
        var tokens = try Self.tokens(source)[...]
        let value = try or(&tokens)
        guard tokens.isEmpty else { throw RecipeError("expression '\(source)': unexpected '\(tokens.first!)'") }
        return value
    }

    /// `text` with every `${{ … }}` replaced by its value.
    func substitute(_ text: String) throws -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "${{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw RecipeError("unclosed ${{ in '\(text)'")
            }
            result += rest[..<open.lowerBound]
            result += try evaluate(String(rest[open.upperBound..<close.lowerBound])).text
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    private func or(_ tokens: inout ArraySlice<String>) throws -> Value {
        var left = try and(&tokens)
        while tokens.first == "||" {
            tokens.removeFirst()
            let right = try and(&tokens)
            left = left.truthy ? left : right
        }
        return left
    }

    private func and(_ tokens: inout ArraySlice<String>) throws -> Value {
        var left = try comparison(&tokens)
        while tokens.first == "&&" {
            tokens.removeFirst()
            let right = try comparison(&tokens)
            left = left.truthy ? right : left
        }
        return left
    }

    private func comparison(_ tokens: inout ArraySlice<String>) throws -> Value {
        let left = try operand(&tokens)
        guard let op = tokens.first, op == "==" || op == "!=" else { return left }
        tokens.removeFirst()
        let right = try operand(&tokens)
        // Strings compare case-insensitively in GitHub's expressions.
        let equal = left.text.lowercased() == right.text.lowercased()
        return .bool(op == "==" ? equal : !equal)
    }

    private func operand(_ tokens: inout ArraySlice<String>) throws -> Value {
        guard let token = tokens.popFirst() else { throw RecipeError("expression ends too early") }
        if token.hasPrefix("'") { return .string(String(token.dropFirst().dropLast())) }
        if token == "always()" { return .bool(true) }
        guard let value = context(token) else { throw RecipeError("expression: unknown '\(token)'") }
        return value
    }

    private static func tokens(_ source: String) throws -> [String] {
        var tokens: [String] = []
        var rest = Substring(source)
        while let first = rest.first {
            if first == " " {
                rest.removeFirst()
            } else if first == "'" {
                guard let end = rest.dropFirst().firstIndex(of: "'") else { throw RecipeError("unclosed string") }
                tokens.append(String(rest[...end]))
                rest = rest[rest.index(after: end)...]
            } else if let op = ["==", "!=", "&&", "||"].first(where: { rest.hasPrefix($0) }) {
                tokens.append(op)
                rest = rest.dropFirst(2)
            } else {
                let word = rest.prefix { $0.isLetter || $0.isNumber || "._-()".contains($0) }
                guard !word.isEmpty else { throw RecipeError("expression '\(source)': cannot read '\(rest)'") }
                tokens.append(String(word))
                rest = rest.dropFirst(word.count)
            }
        }
        return tokens
    }
}
