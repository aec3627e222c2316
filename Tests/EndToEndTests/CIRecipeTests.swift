import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// Documentation/CI.md's pipelines, read from the document (the blocks marked `<!-- ci-recipe: … -->`), checked
/// against check-jsonschema's GitHub workflow and GitLab CI schemas, and run: every job's shell steps on a
/// `CIMachine` against an emulated lab, with stand-ins for xcodebuild, gh, curl, git and the artifact store
/// (Fixtures/ci-recipes/). Each pipeline runs as a team meets it: before any green main build, on main, then on
/// a pull (merge) request.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(20))) struct CIRecipeTests {
    /// The recipes CI.md promises: two per platform and the sharded lab.
    static let expected = [
        "github launch-time", "github launch-time-ab", "github launch-time-sharded", "gitlab launch-benchmark",
        "gitlab launch-ab",
    ]

    @Test func everyRecipeIsMarkedAndPassesItsSchema() async throws {
        let recipes = try CIRecipe.all()
        #expect(recipes.map(\.description) == Self.expected)
        let folder = EndToEnd.temporaryFolder("ci-schema")
        for recipe in recipes {
            let check = try await CheckJSONSchema.validate(recipe, in: folder)
            #expect(check.ok, "\(recipe): \(check.output)")
        }
        // The check can fail: a misspelt key is refused.
        var broken = try CIRecipe.named(.github, "launch-time")
        broken.yaml = broken.yaml.replacingOccurrences(of: "runs-on:", with: "runs_on:")
        var brokenLab = try CIRecipe.named(.gitlab, "launch-ab")
        brokenLab.yaml = brokenLab.yaml.replacingOccurrences(
            of: "resource_group: iphone-lab", with: "resource_group: [1]")
        for recipe in [broken, brokenLab] {
            #expect(try await !CheckJSONSchema.validate(recipe, in: folder).ok, "\(recipe) passed its schema broken")
        }
    }

    /// A second job on the same phones would find them busy: every job that runs `launchbench run` is in a
    /// concurrency group that never cancels a running job (GitHub) or a resource group (GitLab).
    @Test func everyJobThatUsesPhonesIsSerialised() async throws {
        var phoneJobs = 0
        for recipe in try CIRecipe.all() {
            let document = try await CheckJSONSchema.load(recipe)
            let jobs = recipe.platform == .github ? document["jobs"]?.object ?? [:] : document.object ?? [:]
            for (name, job) in jobs {
                let scripts =
                    recipe.platform == .github
                    ? (job["steps"]?.array ?? []).compactMap { $0["run"]?.string }
                    : job["script"]?.strings ?? []
                guard scripts.contains(where: { $0.contains("launchbench run") }) else { continue }
                phoneJobs += 1
                if recipe.platform == .github {
                    let group = job["concurrency"]?["group"]?.string ?? ""
                    #expect(group.hasPrefix("iphone-lab"), "\(recipe) job \(name): no concurrency group")
                    #expect(job["concurrency"]?["cancel-in-progress"]?.string == "false", "\(recipe) job \(name)")
                } else {
                    #expect(job["resource_group"]?.string == "iphone-lab", "\(recipe) job \(name): no resource_group")
                }
            }
        }
        #expect(phoneJobs == 5)
    }

    @Test func theStoredBaselineWorkflowRunsBeforeMainOnMainAndOnAPullRequest() async throws {
        let recipe = try CIRecipe.named(.github, "launch-time")
        try await Self.withMachine("gh-baseline") { machine in
            // A pull request before any green main build: measured, with no gate, and said so.
            let first = try await GitHubWorkflowRun.run(recipe, event: .pullRequest, on: machine)
            let early = try first.job("launch")
            #expect(early.result == .success, "\(first.log)")
            #expect(early.log.contains("::warning::No green main run of launch-time yet"), "\(early.log)")
            #expect(
                !FileManager.default.fileExists(atPath: early.workspace!.appendingPathComponent("launch-gate.xml").path)
            )

            let main = try await GitHubWorkflowRun.run(recipe, event: .push(branch: "main"), on: machine)
            #expect(try main.job("launch").result == .success, "\(main.log)")
            let baseline = machine.store.appendingPathComponent("artifacts/\(main.runID)/launch-baseline/run.json")
            #expect(FileManager.default.fileExists(atPath: baseline.path))

            let pull = try await GitHubWorkflowRun.run(recipe, event: .pullRequest, on: machine)
            let gated = try pull.job("launch")
            #expect(gated.result == .success, "\(pull.log)")
            #expect(
                FileManager.default.fileExists(atPath: gated.workspace!.appendingPathComponent("launch-gate.xml").path))
            #expect(gated.summary.contains("PASSED"), "\(gated.summary)")
            // launchbench was built into the tool cache once and found there by the later jobs.
            #expect(try Self.clones(machine) == 1)
        }
    }

    @Test func theABWorkflowKeepsTheExecutableModeAndGuardsAnEmptyRunID() async throws {
        let recipe = try CIRecipe.named(.github, "launch-time-ab")
        try await Self.withMachine("gh-ab") { machine in
            let first = try await GitHubWorkflowRun.run(recipe, event: .pullRequest, on: machine)
            let early = try first.job("launch-ab")
            #expect(early.result == .success, "\(first.log)")
            #expect(early.log.contains("no BASE app: nothing measured"), "\(early.log)")
            #expect(early.steps.last { $0.name.hasPrefix("NEW against BASE") }?.result == .skipped)

            let main = try await GitHubWorkflowRun.run(recipe, event: .push(branch: "main"), on: machine)
            #expect(try main.job("build").result == .success, "\(main.log)")
            #expect(try main.job("launch-ab").result == .skipped)

            let pull = try await GitHubWorkflowRun.run(recipe, event: .pullRequest, on: machine)
            let ab = try pull.job("launch-ab")
            #expect(ab.result == .success, "\(pull.log)")
            let workspace = try #require(ab.workspace)
            for app in ["new/App.app/App", "base/App.app/App"] {
                let mode = CIMachine.mode(of: workspace.appendingPathComponent(app)) ?? 0
                #expect(mode & 0o111 != 0, "\(app) lost its executable bit: mode \(String(mode, radix: 8))")
            }
            #expect(
                FileManager.default.fileExists(atPath: workspace.appendingPathComponent("launch-ab/base/run.json").path)
            )
            #expect(ab.summary.contains("PASSED"), "\(ab.summary)")
        }
    }

    @Test func theShardedWorkflowMergesEveryHostAndGates() async throws {
        let recipe = try CIRecipe.named(.github, "launch-time-sharded")
        let hosts = ["lab-mini-1", "lab-mini-2", "lab-linux-1"]
        var labs: [EmulatedLab] = []
        defer { for lab in labs { Task { await lab.stop() } } }
        for (index, _) in hosts.enumerated() {
            labs.append(
                try await PrivateLab.start(devices: [
                    .numbered(index + 1, productType: "iPhone6,1", osVersion: "12.5.7")
                ]))
        }
        try await Self.withMachine("gh-sharded") { machine in
            for (host, lab) in zip(hosts, labs) { machine.usbmuxd[host] = lab.usbmuxdSocketAddress }
            let main = try await GitHubWorkflowRun.run(recipe, event: .push(branch: "main"), on: machine)
            #expect(
                main.jobs.filter { $0.id == "measure" }.map(\.result) == [.success, .success, .success], "\(main.log)")
            #expect(try main.job("gate").result == .success, "\(main.log)")
            let pull = try await GitHubWorkflowRun.run(recipe, event: .pullRequest, on: machine)
            let gate = try pull.job("gate")
            #expect(gate.result == .success, "\(pull.log)")
            #expect(gate.summary.contains("PASSED"), "\(gate.summary)")
            let samples = try String(
                contentsOf: gate.workspace!.appendingPathComponent("launch-results/samples.jsonl"), encoding: .utf8)
            #expect(Set(labs.flatMap { $0.devices.map(\.udid) }).allSatisfy { samples.contains($0) })
        }
        for lab in labs { await lab.stop() }
        labs = []
    }

    @Test func theGitLabStoredBaselinePipelineGatesABranchAgainstMain() async throws {
        let recipe = try CIRecipe.named(.gitlab, "launch-benchmark")
        try await Self.withMachine("gl-baseline") { machine in
            let early = try await GitLabPipelineRun.run(recipe, source: .push(branch: "feature"), on: machine)
            let first = try early.job("launch-benchmark")
            #expect(first.succeeded, "\(first.output)")
            #expect(first.output.contains("No green main pipeline yet"), "\(first.output)")

            let main = try await GitLabPipelineRun.run(recipe, source: .push(branch: "main"), on: machine)
            let measured = try main.job("launch-benchmark")
            #expect(measured.succeeded, "\(measured.output)")

            let branch = try await GitLabPipelineRun.run(recipe, source: .push(branch: "feature"), on: machine)
            let gated = try branch.job("launch-benchmark")
            #expect(gated.succeeded, "\(gated.output)")
            let markdown = try String(
                contentsOf: gated.workspace.appendingPathComponent("launch-gate.md"), encoding: .utf8)
            #expect(markdown.contains("PASSED"), "\(markdown)")
            #expect(try Self.clones(machine) == 1)
        }
    }

    @Test func theGitLabABPipelineRunsInAMergeRequestAndKeepsTheExecutableMode() async throws {
        let recipe = try CIRecipe.named(.gitlab, "launch-ab")
        try await Self.withMachine("gl-ab") { machine in
            let early = try await GitLabPipelineRun.run(recipe, source: .mergeRequest, on: machine)
            let first = try early.job("launch-ab")
            #expect(first.succeeded, "\(first.output)")
            #expect(first.output.contains("no BASE app: nothing measured"), "\(first.output)")

            let main = try await GitLabPipelineRun.run(recipe, source: .push(branch: "main"), on: machine)
            #expect(main.jobs.map(\.name) == ["launch-app"])
            #expect(try main.job("launch-app").succeeded)

            let request = try await GitLabPipelineRun.run(recipe, source: .mergeRequest, on: machine)
            let ab = try request.job("launch-ab")
            #expect(ab.succeeded, "\(ab.output)")
            for app in ["new/App.app/App", "base/App.app/App"] {
                let mode = CIMachine.mode(of: ab.workspace.appendingPathComponent(app)) ?? 0
                #expect(mode & 0o111 != 0, "\(app) lost its executable bit: mode \(String(mode, radix: 8))")
            }
            let markdown = try String(contentsOf: ab.workspace.appendingPathComponent("launch-ab.md"), encoding: .utf8)
            #expect(markdown.contains("PASSED"), "\(markdown)")
        }
    }

    // MARK: - The machine

    /// A machine with one emulated iPhone 5s (iOS 12.5.7, through libimobiledevice), the app's repository and
    /// an app whose launches do not vary, so that each gate's verdict is "unchanged" whatever the order.
    private static func withMachine(_ label: String, _ body: (CIMachine) async throws -> Void) async throws {
        try await PrivateLab.with(devices: [.numbered(1, productType: "iPhone6,1", osVersion: "12.5.7")]) { lab in
            let folder = EndToEnd.temporaryFolder(label)
            var profile = EndToEnd.profile()
            profile.noise = 0
            let app = try EndToEnd.makeApp("App", profile: profile, bundleID: "com.example.ci.app")
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: app.url.appendingPathComponent("App").path)
            let repository = folder.appendingPathComponent("repository")
            try FileManager.default.createDirectory(
                at: repository.appendingPathComponent(".launchbench"), withIntermediateDirectories: true)
            try Data("SampleKit.framework\n".utf8).write(
                to: repository.appendingPathComponent(".launchbench/allowed-dylibs.txt"))
            let machine = try CIMachine(
                root: folder.appendingPathComponent("machine"), repository: repository, app: app.url,
                launchbench: try LaunchbenchCLI.executable(), usbmuxd: ["default": lab.usbmuxdSocketAddress])
            try await body(machine)
        }
    }

    /// How many times a recipe cloned launchbench (its install step).
    private static func clones(_ machine: CIMachine) throws -> Int {
        let log = (try? String(contentsOf: machine.store.appendingPathComponent("git.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").count
    }
}
