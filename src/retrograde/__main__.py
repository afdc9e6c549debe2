from retrograde.cli import main

main()
