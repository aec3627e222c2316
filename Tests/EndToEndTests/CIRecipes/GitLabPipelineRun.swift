import Foundation
import TestSupport

/// One pipeline of a GitLab CI recipe of CI.md on a `CIMachine`: the jobs its `rules` admit (a job without
/// rules runs in branch pipelines only, as GitLab's default), in the order of their `needs`, each in a fresh
/// copy of the repository with its needed jobs' artifacts (modes not kept), its `before_script` (or the
/// default's) and `script` in one bash shell with `set -eo pipefail`, as the runner does. A successful job on
/// the default branch leaves its artifacts where `curl …/jobs/artifacts/main/download?job=NAME` finds them.
struct GitLabPipelineRun {
    enum Source {
        case push(branch: String)
        case mergeRequest
    }

    struct Job {
        var name: String
        var succeeded: Bool
        var output: String
        var workspace: URL
    }

    var jobs: [Job]

    func job(_ name: String) throws -> Job {
        guard let job = jobs.first(where: { $0.name == name }) else { throw RecipeError("no job \(name) ran") }
        return job
    }

    static let reserved: Set = [
        "variables", "default", "stages", "workflow", "include", "image", "services", "cache", "before_script",
        "after_script",
    ]

    static func run(_ recipe: CIRecipe, source: Source, on machine: CIMachine) async throws -> GitLabPipelineRun {
        let document = try await CheckJSONSchema.load(recipe)
        guard let top = document.object else { throw RecipeError("\(recipe): not a mapping") }
        var variables = machine.environment(host: "default")
        variables.merge([
            "CI": "true", "GITLAB_CI": "true", "CI_DEFAULT_BRANCH": "main", "CI_PROJECT_ID": "42",
            "CI_API_V4_URL": "https://gitlab.example.invalid/api/v4", "CI_JOB_TOKEN": "stand-in-token",
            "LAUNCHBENCH_REPOSITORY": machine.launchbenchRepository,
        ]) { _, new in new }
        switch source {
        case .push(let branch):
            variables["CI_PIPELINE_SOURCE"] = "push"
            variables["CI_COMMIT_BRANCH"] = branch
        case .mergeRequest:
            variables["CI_PIPELINE_SOURCE"] = "merge_request_event"
        }
        for (key, value) in document["variables"]?.object ?? [:] { variables[key] = value.string }
        let defaultBefore = document["default"]?["before_script"]?.strings ?? []

        let names = top.keys.filter { !reserved.contains($0) && !$0.hasPrefix(".") }.sorted()
        let admitted = try names.filter { try admits(top[$0]!, variables: variables) }
        var jobs: [Job] = []
        var pending = admitted
        while !pending.isEmpty {
            guard
                let name = pending.first(where: { name in
                    (top[name]?["needs"]?.strings ?? []).allSatisfy { need in jobs.contains { $0.name == need } }
                })
            else {
                let missing = pending.flatMap { top[$0]?["needs"]?.strings ?? [] }.filter { !admitted.contains($0) }
                throw RecipeError(
                    "\(recipe): pipeline not created: a job needs \(missing), which is not in this pipeline")
            }
            pending.removeAll { $0 == name }
            let job = top[name]!
            let needs = job["needs"]?.strings ?? []
            guard needs.allSatisfy({ need in jobs.first { $0.name == need }?.succeeded == true }) else {
                continue  // skipped: a job it needs failed
            }
            let workspace = try machine.workspace(name)
            for item in try FileManager.default.contentsOfDirectory(atPath: machine.repository.path) {
                try FileManager.default.copyItem(
                    at: machine.repository.appendingPathComponent(item), to: workspace.appendingPathComponent(item))
            }
            for need in needs {
                let needed = jobs.first { $0.name == need }!
                for path in top[need]?["artifacts"]?["paths"]?.strings ?? [] {
                    try copyArtifact(path, from: needed.workspace, to: workspace)
                }
            }
            let before = job["before_script"]?.strings ?? defaultBefore
            let script = (["set -eo pipefail"] + before + (job["script"]?.strings ?? [])).joined(separator: "\n")
            let result = try await machine.run(script, in: workspace, environment: variables)
            let succeeded = result.status == 0
            jobs.append(Job(name: name, succeeded: succeeded, output: result.output, workspace: workspace))
            if succeeded, case .push(let branch) = source, branch == "main" {
                try await storeArtifacts(
                    job["artifacts"]?["paths"]?.strings ?? [], of: name, from: workspace, machine: machine)
            }
        }
        return GitLabPipelineRun(jobs: jobs)
    }

    /// `rules:` as the recipes write them: `$VAR == "literal"` or `$VAR == $VAR`; the first that holds admits.
    private static func admits(_ job: JSONValue, variables: [String: String]) throws -> Bool {
        guard let rules = job["rules"]?.array else { return variables["CI_PIPELINE_SOURCE"] != "merge_request_event" }
        for rule in rules {
            guard let condition = rule["if"]?.string else { throw RecipeError("a rule without if: \(rule)") }
            let sides = condition.components(separatedBy: " == ").map { $0.trimmingCharacters(in: .whitespaces) }
            guard sides.count == 2 else { throw RecipeError("rule '\(condition)': only A == B") }
            let values = sides.map { side -> String? in
                side.hasPrefix("$") ? variables[String(side.dropFirst())] : side.trimmingCharacters(in: ["\""])
            }
            if let left = values[0], left == values[1] { return true }
        }
        return false
    }

    /// An artifact path copied between jobs without its modes (as the stored-baseline test assumes of any store).
    private static func copyArtifact(_ path: String, from source: URL, to destination: URL) throws {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let item = source.appendingPathComponent(trimmed)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: item.path, isDirectory: &isFolder) else { return }
        let parent = destination.appendingPathComponent(trimmed).deletingLastPathComponent()
        if isFolder.boolValue {
            try CIMachine.copyDroppingModes(item, into: destination.appendingPathComponent(trimmed))
        } else {
            try CIMachine.copyDroppingModes(item, into: parent)
        }
    }

    /// The job's artifacts as the zip GitLab serves for the default branch.
    private static func storeArtifacts(_ paths: [String], of job: String, from workspace: URL, machine: CIMachine)
        async throws
    {
        let staged = machine.root.appendingPathComponent("staged-\(job)-\(UUID().uuidString.prefix(6))")
        for path in paths { try copyArtifact(path, from: workspace, to: staged) }
        guard FileManager.default.fileExists(atPath: staged.path) else { return }
        let folder = machine.store.appendingPathComponent("gitlab/main")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let zip = folder.appendingPathComponent("\(job).zip")
        try? FileManager.default.removeItem(at: zip)
        let result = try await ChildProcess.run(
            "/bin/bash", ["-c", "cd \"$0\" && exec zip -qr \"$1\" .", staged.path, zip.path], timeout: .seconds(60))
        guard result.status == 0 else { throw RecipeError("zip of \(job)'s artifacts failed: \(result.stderr)") }
    }
}
