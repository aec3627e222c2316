import Foundation

/// One run of a GitHub Actions workflow of CI.md on a `CIMachine`: jobs in the order of their `needs`, a matrix
/// expanded, `if:` conditions, `run:` steps in bash with the runner's files (GITHUB_PATH, GITHUB_ENV,
/// GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), and the three actions the recipes use: checkout (copies the app's
/// repository), upload-artifact and download-artifact (through the machine's store, which keeps no file modes).
struct GitHubWorkflowRun {
    enum Event {
        case push(branch: String)
        case pullRequest

        var name: String { if case .push = self { "push" } else { "pull_request" } }
        var ref: String {
            switch self {
            case .push(let branch): "refs/heads/\(branch)"
            case .pullRequest: "refs/pull/7/merge"
            }
        }
    }

    enum Result: String { case success, failure, skipped }

    struct Step {
        var name: String
        var result: Result
        var output: String
    }

    struct Job {
        var id: String
        var matrixValue: String?
        var result: Result
        var steps: [Step]
        var workspace: URL?
        var summary: String

        var log: String { steps.map { "--- \($0.name) [\($0.result)]\n\($0.output)" }.joined(separator: "\n") }
    }

    var workflow: String
    var runID: Int
    var jobs: [Job]

    /// The job's only instance (or the one for `matrix`).
    func job(_ id: String, matrix: String? = nil) throws -> Job {
        guard let job = jobs.first(where: { $0.id == id && (matrix == nil || $0.matrixValue == matrix) }) else {
            throw RecipeError("no job \(id) ran in \(workflow)")
        }
        return job
    }

    var log: String {
        jobs.map { "=== job \($0.id) \($0.matrixValue ?? "") [\($0.result)]\n\($0.log)" }.joined(separator: "\n")
    }

    /// Runs `recipe` for `event`; a push to main that succeeds becomes the workflow's last green main run.
    static func run(_ recipe: CIRecipe, event: Event, on machine: CIMachine) async throws -> GitHubWorkflowRun {
        let workflow = try await CheckJSONSchema.load(recipe)
        guard let name = workflow["name"]?.string, let jobs = workflow["jobs"]?.object else {
            throw RecipeError("\(recipe): no name or jobs")
        }
        let runID = machine.nextRunID()
        var finished: [Job] = []
        for id in try order(jobs) {
            let job = jobs[id]!
            let needs = job["needs"]?.strings ?? []
            let needsSucceeded = needs.allSatisfy { need in
                finished.filter { $0.id == need }.allSatisfy { $0.result == .success }
            }
            let context = Context(event: event, runID: runID, machine: machine)
            let matrix = job["strategy"]?["matrix"]?.object ?? [:]
            guard matrix.count <= 1 else { throw RecipeError("\(recipe) job \(id): a matrix of one key only") }
            let values: [String?] = matrix.first.map { $0.value.strings.map(Optional.some) } ?? [nil]
            for value in values {
                var context = context
                if let key = matrix.first?.key, let value { context.matrix = [key: value] }
                let condition = job["if"]?.string ?? ""
                let runs =
                    try (condition.contains("always()") || needsSucceeded)
                    && (condition.isEmpty || context.expression.evaluate(condition).truthy)
                guard runs else {
                    finished.append(
                        Job(id: id, matrixValue: value, result: .skipped, steps: [], workspace: nil, summary: ""))
                    continue
                }
                finished.append(
                    try await runJob(
                        id, job, workflow: workflow, context: context, matrixValue: value, machine: machine))
            }
        }
        if case .push(let branch) = event, branch == "main", finished.allSatisfy({ $0.result != .failure }) {
            let runs = machine.store.appendingPathComponent("runs")
            try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
            try Data("\(runID)\n".utf8).write(to: runs.appendingPathComponent(name))
        }
        return GitHubWorkflowRun(workflow: name, runID: runID, jobs: finished)
    }

    /// What `${{ }}` and `if:` read.
    struct Context {
        var event: Event
        var runID: Int
        var machine: CIMachine
        var matrix: [String: String] = [:]
        var outputs: [String: [String: String]] = [:]

        var expression: CIExpression {
            CIExpression { name in
                let parts = name.split(separator: ".").map(String.init)
                switch (parts.first, parts.count) {
                case ("github", 2):
                    switch parts[1] {
                    case "event_name": return .string(event.name)
                    case "ref": return .string(event.ref)
                    case "token": return .string("stand-in-token")
                    case "repository": return .string("example/app")
                    default: return nil
                    }
                case ("vars", 2):
                    return parts[1] == "LAUNCHBENCH_REPOSITORY" ? .string(machine.launchbenchRepository) : nil
                case ("matrix", 2): return matrix[parts[1]].map { .string($0) }
                case ("steps", 4) where parts[2] == "outputs":
                    return outputs[parts[1]]?[parts[3]].map { .string($0) } ?? .string("")
                default: return nil
                }
            }
        }
    }

    private static func runJob(
        _ id: String, _ job: JSONValue, workflow: JSONValue, context initial: Context, matrixValue: String?,
        machine: CIMachine
    ) async throws -> Job {
        var context = initial
        let label = id + (matrixValue.map { "-\($0)" } ?? "")
        let workspace = try machine.workspace(label)
        let runnerTemp = try machine.workspace("\(label)-temp")
        let summary = runnerTemp.appendingPathComponent("step-summary.md")
        try Data().write(to: summary)
        let host = matrixValue ?? "default"
        var variables = machine.environment(host: host)
        variables.merge([
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": workspace.path,
            "GITHUB_REPOSITORY": "example/app", "GITHUB_EVENT_NAME": context.event.name,
            "GITHUB_REF": context.event.ref,
            "GITHUB_RUN_ID": String(context.runID), "RUNNER_TOOL_CACHE": machine.toolCache.path,
            "RUNNER_TEMP": runnerTemp.path, "GITHUB_STEP_SUMMARY": summary.path,
        ]) { _, new in new }
        for scope in [workflow["env"], job["env"]] {
            for (key, value) in scope?.object ?? [:] {
                variables[key] = try context.expression.substitute(value.string ?? "")
            }
        }
        var paths: [String] = []
        var steps: [Step] = []
        var failed = false
        for (index, step) in (job["steps"]?.array ?? []).enumerated() {
            let name = step["name"]?.string ?? step["uses"]?.string ?? step["run"]?.string ?? "step \(index + 1)"
            let condition = step["if"]?.string ?? ""
            let runs =
                try (condition.contains("always()") || !failed)
                && (condition.isEmpty || context.expression.evaluate(condition).truthy)
            guard runs else {
                steps.append(Step(name: name, result: .skipped, output: ""))
                continue
            }
            var with: [String: String] = [:]
            for (key, value) in step["with"]?.object ?? [:] {
                with[key] = try context.expression.substitute(value.string ?? "")
            }
            let output: String
            let succeeded: Bool
            if let uses = step["uses"]?.string {
                (succeeded, output) = try action(
                    uses, with: with, workspace: workspace, runID: context.runID, machine: machine)
            } else if let script = step["run"]?.string {
                var environment = variables
                for (key, value) in step["env"]?.object ?? [:] {
                    environment[key] = try context.expression.substitute(value.string ?? "")
                }
                environment["PATH"] = (paths.reversed() + [variables["PATH"]!]).joined(separator: ":")
                let files = (
                    path: runnerTemp.appendingPathComponent("path-\(index)"),
                    env: runnerTemp.appendingPathComponent("env-\(index)"),
                    output: runnerTemp.appendingPathComponent("output-\(index)")
                )
                for file in [files.path, files.env, files.output] {
                    try Data().write(to: file)
                }
                environment["GITHUB_PATH"] = files.path.path
                environment["GITHUB_ENV"] = files.env.path
                environment["GITHUB_OUTPUT"] = files.output.path
                let result = try await machine.run(
                    try context.expression.substitute(script), in: workspace, environment: environment)
                succeeded = result.status == 0
                output = result.output + (result.status.map { $0 == 0 ? "" : "(exit \($0))" } ?? "(killed)")
                paths += try lines(files.path)
                for line in try lines(files.env) {
                    let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
                    if pair.count == 2 { variables[pair[0]] = pair[1] }
                }
                if let stepID = step["id"]?.string {
                    for line in try lines(files.output) {
                        let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
                        if pair.count == 2 { context.outputs[stepID, default: [:]][pair[0]] = pair[1] }
                    }
                }
            } else {
                throw RecipeError("job \(id) step \(name): neither uses nor run")
            }
            failed = failed || !succeeded
            steps.append(Step(name: name, result: succeeded ? .success : .failure, output: output))
        }
        return Job(
            id: id, matrixValue: matrixValue, result: failed ? .failure : .success, steps: steps,
            workspace: workspace, summary: (try? String(contentsOf: summary, encoding: .utf8)) ?? "")
    }

    private static func lines(_ file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The three actions the recipes use.
    private static func action(
        _ uses: String, with: [String: String], workspace: URL, runID: Int, machine: CIMachine
    ) throws -> (Bool, String) {
        let files = FileManager.default
        let artifacts = machine.store.appendingPathComponent("artifacts/\(runID)")
        switch uses {
        case "actions/checkout@v4":
            for name in try files.contentsOfDirectory(atPath: machine.repository.path) {
                try files.copyItem(
                    at: machine.repository.appendingPathComponent(name), to: workspace.appendingPathComponent(name))
            }
            return (true, "checked out \(machine.repository.path)")
        case "actions/upload-artifact@v4":
            guard let name = with["name"], let path = with["path"], !path.contains("\n") else {
                throw RecipeError("upload-artifact: name and one path expected, got \(with)")
            }
            let source = workspace.appendingPathComponent(path)
            guard files.fileExists(atPath: source.path) else {
                return (
                    true, "Warning: No files were found with the provided path: \(path). No artifacts will be uploaded."
                )
            }
            let target = artifacts.appendingPathComponent(name)
            guard !files.fileExists(atPath: target.path) else {
                return (
                    false, "Failed to CreateArtifact: an artifact with this name already exists on the workflow run"
                )
            }
            try CIMachine.copyDroppingModes(source, into: target)
            return (true, "uploaded \(path) as \(name)")
        case "actions/download-artifact@v4":
            let destination = workspace.appendingPathComponent(with["path"] ?? ".")
            if let name = with["name"] {
                let source = artifacts.appendingPathComponent(name)
                guard files.fileExists(atPath: source.path) else {
                    return (false, "Unable to download artifact(s): Artifact not found for name: \(name)")
                }
                try CIMachine.copyDroppingModes(source, into: destination)
                return (true, "downloaded \(name) to \(destination.path)")
            }
            guard let pattern = with["pattern"] else { throw RecipeError("download-artifact: name or pattern") }
            let names = ((try? files.contentsOfDirectory(atPath: artifacts.path)) ?? []).filter {
                fnmatch(pattern, $0, 0) == 0
            }
            for name in names {
                try CIMachine.copyDroppingModes(
                    artifacts.appendingPathComponent(name), into: destination.appendingPathComponent(name))
            }
            return (true, "downloaded \(names.sorted())")
        default:
            throw RecipeError("no stand-in for the action \(uses)")
        }
    }

    /// Job ids in an order where every job comes after the ones it needs (ties by name).
    private static func order(_ jobs: [String: JSONValue]) throws -> [String] {
        var ordered: [String] = []
        var pending = jobs.keys.sorted()
        while !pending.isEmpty {
            guard
                let next = pending.first(where: { id in
                    (jobs[id]?["needs"]?.strings ?? []).allSatisfy(ordered.contains)
                })
            else { throw RecipeError("jobs \(pending) need each other or a job that does not exist") }
            ordered.append(next)
            pending.removeAll { $0 == next }
        }
        return ordered
    }
}
