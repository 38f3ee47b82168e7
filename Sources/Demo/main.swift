// `swift run Demo`: the framework used the way an app would use it. See `swift run Demo --help`.
import DemoKit
import Foundation

exit(await DemoCommand.run(Array(CommandLine.arguments.dropFirst())))
