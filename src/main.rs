fn main() -> std::process::ExitCode {
    gpushare::run()
}
