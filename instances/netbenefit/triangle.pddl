;; triangle-5: vacancy a1 -> one peg at a1
;; written by pegsat
(define (problem triangle-5)
  (:domain pegsolitaire-netbenefit)
  (:objects
    a1 - location
    a2 - location
    b2 - location
    a3 - location
    b3 - location
    c3 - location
    a4 - location
    b4 - location
    c4 - location
    d4 - location
    a5 - location
    b5 - location
    c5 - location
    d5 - location
    e5 - location
  )
  (:init
    (IN-LINE a1 a2 a3)
    (IN-LINE a3 a2 a1)
    (IN-LINE a1 b2 c3)
    (IN-LINE c3 b2 a1)
    (IN-LINE a2 a3 a4)
    (IN-LINE a4 a3 a2)
    (IN-LINE a2 b3 c4)
    (IN-LINE c4 b3 a2)
    (IN-LINE b2 b3 b4)
    (IN-LINE b4 b3 b2)
    (IN-LINE b2 c3 d4)
    (IN-LINE d4 c3 b2)
    (IN-LINE a3 b3 c3)
    (IN-LINE c3 b3 a3)
    (IN-LINE a3 a4 a5)
    (IN-LINE a5 a4 a3)
    (IN-LINE a3 b4 c5)
    (IN-LINE c5 b4 a3)
    (IN-LINE b3 b4 b5)
    (IN-LINE b5 b4 b3)
    (IN-LINE b3 c4 d5)
    (IN-LINE d5 c4 b3)
    (IN-LINE c3 c4 c5)
    (IN-LINE c5 c4 c3)
    (IN-LINE c3 d4 e5)
    (IN-LINE e5 d4 c3)
    (IN-LINE a4 b4 c4)
    (IN-LINE c4 b4 a4)
    (IN-LINE b4 c4 d4)
    (IN-LINE d4 c4 b4)
    (IN-LINE a5 b5 c5)
    (IN-LINE c5 b5 a5)
    (IN-LINE b5 c5 d5)
    (IN-LINE d5 c5 b5)
    (IN-LINE c5 d5 e5)
    (IN-LINE e5 d5 c5)
    (free a1)
    (occupied a2)
    (occupied b2)
    (occupied a3)
    (occupied b3)
    (occupied c3)
    (occupied a4)
    (occupied b4)
    (occupied c4)
    (occupied d4)
    (occupied a5)
    (occupied b5)
    (occupied c5)
    (occupied d5)
    (occupied e5)
  )
  (:goal (and
    (occupied a1)
    (free a2)
    (free b2)
    (free a3)
    (free b3)
    (free c3)
    (free a4)
    (free b4)
    (free c4)
    (free d4)
    (free a5)
    (free b5)
    (free c5)
    (free d5)
    (free e5)
  ))
)
