// `swift run Demo`: the framework used the way an app would use it. See `swift run Demo --help`.
import Foundation

let code = await DemoCommand.run(Array(CommandLine.arguments.dropFirst())) { options in
  Console.terminal(noColor: options.noColor)
}
exit(code)
