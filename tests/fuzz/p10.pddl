;; english: pegs at c1 d1 c2 d2 c3 d3 b4 e4 f4 c5 d5 c6 d6 -> one peg at d4
;; written by pegsat
(define (problem p10)
  (:domain pegsolitaire-sequential)
  (:objects
    pos-0-2 - location
    pos-0-3 - location
    pos-0-4 - location
    pos-1-2 - location
    pos-1-3 - location
    pos-1-4 - location
    pos-2-0 - location
    pos-2-1 - location
    pos-2-2 - location
    pos-2-3 - location
    pos-2-4 - location
    pos-2-5 - location
    pos-2-6 - location
    pos-3-0 - location
    pos-3-1 - location
    pos-3-2 - location
    pos-3-3 - location
    pos-3-4 - location
    pos-3-5 - location
    pos-3-6 - location
    pos-4-0 - location
    pos-4-1 - location
    pos-4-2 - location
    pos-4-3 - location
    pos-4-4 - location
    pos-4-5 - location
    pos-4-6 - location
    pos-5-2 - location
    pos-5-3 - location
    pos-5-4 - location
    pos-6-2 - location
    pos-6-3 - location
    pos-6-4 - location
  )
  (:init
    (= (total-cost) 0)
    (move-ended)
    (IN-LINE pos-0-2 pos-0-3 pos-0-4)
    (IN-LINE pos-0-4 pos-0-3 pos-0-2)
    (IN-LINE pos-0-2 pos-1-2 pos-2-2)
    (IN-LINE pos-2-2 pos-1-2 pos-0-2)
    (IN-LINE pos-0-3 pos-1-3 pos-2-3)
    (IN-LINE pos-2-3 pos-1-3 pos-0-3)
    (IN-LINE pos-0-4 pos-1-4 pos-2-4)
    (IN-LINE pos-2-4 pos-1-4 pos-0-4)
    (IN-LINE pos-1-2 pos-1-3 pos-1-4)
    (IN-LINE pos-1-4 pos-1-3 pos-1-2)
    (IN-LINE pos-1-2 pos-2-2 pos-3-2)
    (IN-LINE pos-3-2 pos-2-2 pos-1-2)
    (IN-LINE pos-1-3 pos-2-3 pos-3-3)
    (IN-LINE pos-3-3 pos-2-3 pos-1-3)
    (IN-LINE pos-1-4 pos-2-4 pos-3-4)
    (IN-LINE pos-3-4 pos-2-4 pos-1-4)
    (IN-LINE pos-2-0 pos-2-1 pos-2-2)
    (IN-LINE pos-2-2 pos-2-1 pos-2-0)
    (IN-LINE pos-2-0 pos-3-0 pos-4-0)
    (IN-LINE pos-4-0 pos-3-0 pos-2-0)
    (IN-LINE pos-2-1 pos-2-2 pos-2-3)
    (IN-LINE pos-2-3 pos-2-2 pos-2-1)
    (IN-LINE pos-2-1 pos-3-1 pos-4-1)
    (IN-LINE pos-4-1 pos-3-1 pos-2-1)
    (IN-LINE pos-2-2 pos-2-3 pos-2-4)
    (IN-LINE pos-2-4 pos-2-3 pos-2-2)
    (IN-LINE pos-2-2 pos-3-2 pos-4-2)
    (IN-LINE pos-4-2 pos-3-2 pos-2-2)
    (IN-LINE pos-2-3 pos-2-4 pos-2-5)
    (IN-LINE pos-2-5 pos-2-4 pos-2-3)
    (IN-LINE pos-2-3 pos-3-3 pos-4-3)
    (IN-LINE pos-4-3 pos-3-3 pos-2-3)
    (IN-LINE pos-2-4 pos-2-5 pos-2-6)
    (IN-LINE pos-2-6 pos-2-5 pos-2-4)
    (IN-LINE pos-2-4 pos-3-4 pos-4-4)
    (IN-LINE pos-4-4 pos-3-4 pos-2-4)
    (IN-LINE pos-2-5 pos-3-5 pos-4-5)
    (IN-LINE pos-4-5 pos-3-5 pos-2-5)
    (IN-LINE pos-2-6 pos-3-6 pos-4-6)
    (IN-LINE pos-4-6 pos-3-6 pos-2-6)
    (IN-LINE pos-3-0 pos-3-1 pos-3-2)
    (IN-LINE pos-3-2 pos-3-1 pos-3-0)
    (IN-LINE pos-3-1 pos-3-2 pos-3-3)
    (IN-LINE pos-3-3 pos-3-2 pos-3-1)
    (IN-LINE pos-3-2 pos-3-3 pos-3-4)
    (IN-LINE pos-3-4 pos-3-3 pos-3-2)
    (IN-LINE pos-3-2 pos-4-2 pos-5-2)
    (IN-LINE pos-5-2 pos-4-2 pos-3-2)
    (IN-LINE pos-3-3 pos-3-4 pos-3-5)
    (IN-LINE pos-3-5 pos-3-4 pos-3-3)
    (IN-LINE pos-3-3 pos-4-3 pos-5-3)
    (IN-LINE pos-5-3 pos-4-3 pos-3-3)
    (IN-LINE pos-3-4 pos-3-5 pos-3-6)
    (IN-LINE pos-3-6 pos-3-5 pos-3-4)
    (IN-LINE pos-3-4 pos-4-4 pos-5-4)
    (IN-LINE pos-5-4 pos-4-4 pos-3-4)
    (IN-LINE pos-4-0 pos-4-1 pos-4-2)
    (IN-LINE pos-4-2 pos-4-1 pos-4-0)
    (IN-LINE pos-4-1 pos-4-2 pos-4-3)
    (IN-LINE pos-4-3 pos-4-2 pos-4-1)
    (IN-LINE pos-4-2 pos-4-3 pos-4-4)
    (IN-LINE pos-4-4 pos-4-3 pos-4-2)
    (IN-LINE pos-4-2 pos-5-2 pos-6-2)
    (IN-LINE pos-6-2 pos-5-2 pos-4-2)
    (IN-LINE pos-4-3 pos-4-4 pos-4-5)
    (IN-LINE pos-4-5 pos-4-4 pos-4-3)
    (IN-LINE pos-4-3 pos-5-3 pos-6-3)
    (IN-LINE pos-6-3 pos-5-3 pos-4-3)
    (IN-LINE pos-4-4 pos-4-5 pos-4-6)
    (IN-LINE pos-4-6 pos-4-5 pos-4-4)
    (IN-LINE pos-4-4 pos-5-4 pos-6-4)
    (IN-LINE pos-6-4 pos-5-4 pos-4-4)
    (IN-LINE pos-5-2 pos-5-3 pos-5-4)
    (IN-LINE pos-5-4 pos-5-3 pos-5-2)
    (IN-LINE pos-6-2 pos-6-3 pos-6-4)
    (IN-LINE pos-6-4 pos-6-3 pos-6-2)
    (occupied pos-0-2)
    (occupied pos-0-3)
    (free pos-0-4)
    (occupied pos-1-2)
    (occupied pos-1-3)
    (free pos-1-4)
    (free pos-2-0)
    (free pos-2-1)
    (occupied pos-2-2)
    (occupied pos-2-3)
    (free pos-2-4)
    (free pos-2-5)
    (free pos-2-6)
    (free pos-3-0)
    (occupied pos-3-1)
    (free pos-3-2)
    (free pos-3-3)
    (occupied pos-3-4)
    (occupied pos-3-5)
    (free pos-3-6)
    (free pos-4-0)
    (free pos-4-1)
    (occupied pos-4-2)
    (occupied pos-4-3)
    (free pos-4-4)
    (free pos-4-5)
    (free pos-4-6)
    (occupied pos-5-2)
    (occupied pos-5-3)
    (free pos-5-4)
    (free pos-6-2)
    (free pos-6-3)
    (free pos-6-4)
  )
  (:goal (and
    (occupied pos-3-3)
    (free pos-0-2)
    (free pos-0-3)
    (free pos-0-4)
    (free pos-1-2)
    (free pos-1-3)
    (free pos-1-4)
    (free pos-2-0)
    (free pos-2-1)
    (free pos-2-2)
    (free pos-2-3)
    (free pos-2-4)
    (free pos-2-5)
    (free pos-2-6)
    (free pos-3-0)
    (free pos-3-1)
    (free pos-3-2)
    (free pos-3-4)
    (free pos-3-5)
    (free pos-3-6)
    (free pos-4-0)
    (free pos-4-1)
    (free pos-4-2)
    (free pos-4-3)
    (free pos-4-4)
    (free pos-4-5)
    (free pos-4-6)
    (free pos-5-2)
    (free pos-5-3)
    (free pos-5-4)
    (free pos-6-2)
    (free pos-6-3)
    (free pos-6-4)
  ))
  (:metric minimize (total-cost))
)
