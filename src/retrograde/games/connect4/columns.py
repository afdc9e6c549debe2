"""Connect Four's column letters, the move notation (a move names the column a disc drops into),
shared by the rules and the display: boards are 4 to 7 columns wide."""

COLUMNS = "abcdefg"
