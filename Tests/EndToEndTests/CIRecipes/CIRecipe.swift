import Foundation
import TestSupport

/// A pipeline of Documentation/CI.md: each fenced `yaml` block right after a `<!-- ci-recipe: PLATFORM NAME -->`
/// line, read from the document itself so that the recipe users copy is the one the tests run.
struct CIRecipe: CustomStringConvertible {
    enum Platform: String { case github, gitlab }

    var platform: Platform
    var name: String
    var yaml: String

    var description: String { "\(platform.rawValue) \(name)" }

    static let document = PackageRoot.at("Documentation/CI.md")

    /// Every marked block of CI.md, in order.
    static func all() throws -> [CIRecipe] {
        let lines = try String(contentsOf: document, encoding: .utf8).components(separatedBy: "\n")
        var recipes: [CIRecipe] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard line.hasPrefix("<!-- ci-recipe:"), line.hasSuffix("-->") else { continue }
            let words = line.dropFirst("<!-- ci-recipe:".count).dropLast(3).split(separator: " ")
            guard words.count == 2, let platform = Platform(rawValue: String(words[0])),
                index < lines.count, lines[index] == "```yaml"
            else { throw RecipeError("CI.md: '\(line)' is not followed by a ```yaml block, or names no platform") }
            let body = lines[(index + 1)...].prefix { $0 != "```" }
            recipes.append(CIRecipe(platform: platform, name: String(words[1]), yaml: body.joined(separator: "\n")))
            index += body.count + 2
        }
        return recipes
    }

    static func named(_ platform: Platform, _ name: String) throws -> CIRecipe {
        guard let recipe = try all().first(where: { $0.platform == platform && $0.name == name }) else {
            throw RecipeError("CI.md has no block marked <!-- ci-recipe: \(platform.rawValue) \(name) -->")
        }
        return recipe
    }
}

struct RecipeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// check-jsonschema and its ruamel.yaml, in the venv Scripts/bootstrap makes (.venv-ci-check/).
enum CheckJSONSchema {
    static let venv = PackageRoot.at(".venv-ci-check/bin")

    static func requireInstalled() throws {
        guard FileManager.default.isExecutableFile(atPath: venv.appendingPathComponent("check-jsonschema").path)
        else { throw RecipeError("\(venv.path)/check-jsonschema is missing: run Scripts/bootstrap") }
    }

    /// The recipe checked against check-jsonschema's vendored GitHub workflow or GitLab CI schema.
    static func validate(_ recipe: CIRecipe, in folder: URL) async throws -> (ok: Bool, output: String) {
        try requireInstalled()
        let file = folder.appendingPathComponent("\(recipe.platform.rawValue)-\(recipe.name).yml")
        try Data(recipe.yaml.utf8).write(to: file)
        let schema = recipe.platform == .github ? "vendor.github-workflows" : "vendor.gitlab-ci"
        let result = try await ChildProcess.run(
            venv.appendingPathComponent("check-jsonschema").path, ["--builtin-schema", schema, file.path],
            timeout: .seconds(120))
        return (result.status == 0, String(decoding: result.stdout, as: UTF8.self) + result.stderr)
    }

    /// The recipe's YAML as JSON, read as YAML 1.2 (a workflow's `on:` stays a key; PyYAML makes it `true`).
    static func load(_ recipe: CIRecipe) async throws -> JSONValue {
        try requireInstalled()
        let script = """
            import json, sys
            from ruamel.yaml import YAML
            json.dump(YAML(typ="safe", pure=True).load(sys.stdin.read()), sys.stdout)
            """
        let result = try await ChildProcess.run(
            venv.appendingPathComponent("python").path, ["-c", script], stdin: recipe.yaml, timeout: .seconds(60))
        guard result.status == 0 else { throw RecipeError("\(recipe): YAML not read: \(result.stderr)") }
        return try JSONDecoder().decode(JSONValue.self, from: result.stdout)
    }
}

/// A YAML document's value as JSON has it.
enum JSONValue: Decodable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var object: [String: JSONValue] = [:]
            for key in container.allKeys { object[key.stringValue] = try container.decode(JSONValue.self, forKey: key) }
            self = .object(object)
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? {
        switch self {
        case .string(let s): s
        case .number(let n): n == n.rounded() ? String(Int(n)) : String(n)
        case .bool(let b): String(b)
        default: nil
        }
    }

    var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }

    /// A string or a list of strings, as `needs:` and `runs-on:` take either.
    var strings: [String] { array.map { $0.compactMap(\.string) } ?? string.map { [$0] } ?? [] }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
