import ArgumentParser
import LaunchBench
import Testing

@testable import launchbench

/// `launchbench emulator`'s phone-variation options: what they set on the devices and how a bad value is
/// refused (exit 64, naming the option).
@Suite struct EmulatorVariationOptionTests {
    @Test func theOptionsBecomeTheDevicesVariation() throws {
        let parsed = try LaunchBenchCommand.parseAsRoot([
            "emulator", "--launch-noise", "0.05", "--run-offset", "0.2", "--drift", "0.1", "--drift-launches", "30",
            "--outliers", "0.02", "--outlier-size", "0.4", "--seed", "7",
        ])
        let emulator = try #require(parsed as? Emulator)
        let variation = try #require(emulator.variation)
        #expect(variation.launch == 0.05 && variation.runOffset == 0.2 && variation.drift == 0.1)
        #expect(variation.driftLaunches == 30 && variation.outlierProbability == 0.02 && variation.outlierSize == 0.4)
        #expect(emulator.seed == 7)
        let plain = try #require(try LaunchBenchCommand.parseAsRoot(["emulator"]) as? Emulator)
        #expect(plain.variation == nil)
        #expect(plain.seed == 0)
    }

    @Test(arguments: [
        (["--run-offset", "3"], "--run-offset 3.0 must be from 0 to 2"),
        (["--launch-noise=-0.1"], "--launch-noise -0.1 must be from 0 to 2"),
        (["--outliers", "1.5"], "--outliers 1.5 must be from 0 to 1"),
        (["--drift-launches", "0"], "--drift-launches 0.0 must be from 1 to 1000000"),
    ])
    func aBadValueIsRefusedNamingTheOption(arguments: [String], message: String) throws {
        let refusal = try #require(CommandParsingTests.refusal(["emulator"] + arguments), "\(arguments) was accepted")
        #expect(refusal.status == ExitStatus.usage.rawValue)
        #expect(refusal.message.contains(message), "\(refusal.message)")
    }
}
