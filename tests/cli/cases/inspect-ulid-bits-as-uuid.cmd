inspect --json 0186cb65-25d7-81da-815c-7e25a6bfe7db 01563e3a-b5d3-d676-4c61-efb99302bd5b
