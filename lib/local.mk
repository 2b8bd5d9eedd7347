# lib
